/* mpi-run ranks: 1 */
/* Tests of the transport of ice thickness and concentration on general
 * quadrilateral cells (cryo_seaice_transport with p.quad = 1: dG0 in
 * kernels/seaice_quad_fields.c, limited dG1 in kernels/seaice_quad_advect_dg1.c)
 * on one non-periodic block with a no-op halo: the halo ring lies outside the
 * domain, where mask and geometry are 0.
 *
 * Grids are built here from node positions through cryo_seaice_geometry:
 * polar stereographic (the inverse projection from the plane tangent at the
 * North Pole onto the sphere of radius 6371229 m, rho = 2 R tan(colatitude / 2))
 * or planar.
 *
 * 1. Conservation with land: 24 x 20 cells of 100 km (projected) around the
 *    pole, an L-shaped island and a one-cell island, a smooth non-uniform
 *    velocity in the grid frames (rotational plus a divergent part, nonzero
 *    next to the land and the outer wall, so that cells there drain to h = 0),
 *    h in [0.5, 1.5] m, a in [0.1, 1]; 100 steps at CFL 0.5 for dG0 and 0.2
 *    for dG1: |sum(h 4 d0) - initial| / initial <= 1e-13, and after every
 *    step h >= 0 and 0 <= a <= 1 (dG1: at the four corners of every cell,
 *    where the linear field is extreme). dG1 runs at the smaller Courant
 *    number because the limited scheme keeps the cell means of the draining
 *    cells non-negative only there (at 0.3 a mean fell below 0 and its
 *    clipping added 3e-10 of the volume; positivity of the means of limited
 *    dG with SSP Runge-Kutta holds under a reduced CFL: Zhang and Shu 2010,
 *    J. Comput. Phys. 229, 3091-3120).
 * 2. Solid-body rotation of a cosine bell across the polar cap (after
 *    Williamson et al. 1992, J. Comput. Phys. 102, 211-224, test case 1):
 *    the cap above 55 N on polar stereographic grids of 32, 64 and 128 cells
 *    across, rotation about an axis in the equatorial plane (the 90 E - 90 W
 *    axis), so that the flow crosses the pole; a bell of radius 35/3 degrees
 *    starts 20 degrees from the pole on the 180 meridian and is carried 40
 *    degrees, over the pole, to 20 degrees on the 0 meridian, never nearer
 *    than 3 degrees to the edge of the domain; dt proportional to the cell
 *    size, each scheme near its stability limit: Courant number 0.8 at the
 *    pole for dG0 (forward Euler upwind, limit 1) and 0.25 for dG1 (Heun,
 *    limit 1/3). The area-weighted L1 error of the cell means against the
 *    exact bell at the centroids, relative to the bell's L1 norm, falls with
 *    the observed order >= 0.8 for dG0 (upwind, first order) and >= 1.5 for
 *    dG1 (second order, less the peak that the minmod limiter clips), and
 *    dG1's error is below dG0's at every resolution. Upwind's error grows with
 *    its numerical diffusion, dx (1 - C) / 2 times the speed: at C = 0.25 the
 *    40-degree trip smears the bell so far that the first-order range starts
 *    beyond 256 cells (observed orders 0.67 and 0.79 from 64 to 256).
 *    The same on the grid warped by 0.05 (grid_spec), whose bent grid lines
 *    turn the node frames against the cell frames and make the cells
 *    non-parallelograms: on the plain polar grid the rotations are nearly the
 *    identity (face velocities left unrotated changed no error by more than
 *    1 %), on the warped one they drop dG1's order to 1.4.
 * 3. Planar Cartesian grid (12 x 10 cells of 3 x 2 km, node (i, j) at
 *    (i dx, j dy)) with an island: 10 steps of the quadrilateral transport
 *    equal the rectangle kernels' (p.quad = 0) to 1e-13 of the largest value,
 *    dG0 and dG1.
 */
#include <CUnit/Basic.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "seaice.h"
#include "test_seaice_common.h"

#define RADIUS 6371229.0               /* m */
#define DEGREE 0.017453292519943295769 /* pi / 180 */
#define PI     3.14159265358979323846

/* A grid: node (i, j) at (x0 + i dx, y0 + j dy) in the plane, or, spherical,
 * in the polar stereographic plane, mapped onto the sphere; with warp w, the
 * point (x, y) first moves by w L sin(pi x / L) sin(pi y / L) along x and y,
 * which leaves the square |x|, |y| <= L in place and bends the grid lines. */
typedef struct {
  int spherical;
  double x0, y0, dx, dy; /* m */
  double warp, half;     /* w, 1; L, m */
} grid_spec;

/* lon/lat (degrees) of projected point (x, y), or (x, y) itself if planar */
static void grid_coords(const grid_spec *g, double x, double y, double *cx, double *cy) {
  if (g->warp != 0.0) {
    const double shift = g->warp * g->half * sin(PI * x / g->half) * sin(PI * y / g->half);
    x += shift;
    y += shift;
  }
  if (!g->spherical) {
    *cx = x;
    *cy = y;
    return;
  }
  *cx = atan2(y, x) / DEGREE;
  *cy = 90.0 - 2.0 * atan(hypot(x, y) / (2.0 * RADIUS)) / DEGREE;
}

/* Unit vector of the sphere at lon/lat (degrees). */
static void unit_at(double lon, double lat, double r[3]) {
  r[0] = cos(lat * DEGREE) * cos(lon * DEGREE);
  r[1] = cos(lat * DEGREE) * sin(lon * DEGREE);
  r[2] = sin(lat * DEGREE);
}

/* Node (i, j)'s lon/lat (or x/y). */
static void node_coords(const grid_spec *g, int i, int j, double *cx, double *cy) {
  grid_coords(g, g->x0 + i * g->dx, g->y0 + j * g->dy, cx, cy);
}

/* The geometry arrays of s for grid g: nodes [0, nx] x [0, ny] and cells
 * [0, nx) x [0, ny) are the domain. */
static void build_geometry(const cryo_block *b, const grid_spec *g, cryo_seaice_state *s) {
  const long nring = (long)(b->nx + 5) * (b->ny + 5);
  double *nx = calloc(nring, sizeof(double)), *ny = calloc(nring, sizeof(double));
  unsigned char *nok = calloc(nring, 1), *cok = calloc(CRYO_NCELL(b), 1);
  double *cx = calloc(CRYO_NCELL(b), sizeof(double)), *cy = calloc(CRYO_NCELL(b), sizeof(double));
  for (int j = -2; j <= b->ny + 2; ++j)
    for (int i = -2; i <= b->nx + 2; ++i) {
      const long k = (long)(j + 2) * (b->nx + 5) + i + 2;
      node_coords(g, i, j, &nx[k], &ny[k]);
      nok[k] = i >= 0 && i <= b->nx && j >= 0 && j <= b->ny;
    }
  for (int j = -1; j <= b->ny; ++j)
    for (int i = -1; i <= b->nx; ++i) {
      const long c = CRYO_CELL(b, i, j);
      grid_coords(g, g->x0 + (i + 0.5) * g->dx, g->y0 + (j + 0.5) * g->dy, &cx[c], &cy[c]);
      cok[c] = i >= 0 && i < b->nx && j >= 0 && j < b->ny;
    }
  const cryo_seaice_grid_points pts = {g->spherical, RADIUS, 7.292e-5, 1.46e-4, nx,
                                       ny,           nok,    cx,       cy,      cok};
  test_si_geometry(b, &pts, s);
  free(nx);
  free(ny);
  free(nok);
  free(cok);
  free(cx);
  free(cy);
}

/* det = d0 + d1 X + d2 Y of cell c, and its centroid (d1, d2) / (3 d0). */
static void cell_det(const double *geom, long c, double *d0, double *xc, double *yc) {
  const double *g = geom + c * CRYO_SEAICE_NGEOM;
  *d0 = g[CRYO_GEOM_A1X] * g[CRYO_GEOM_A2Y] - g[CRYO_GEOM_A1Y] * g[CRYO_GEOM_A2X];
  *xc = (g[CRYO_GEOM_A1X] * g[CRYO_GEOM_A3Y] - g[CRYO_GEOM_A1Y] * g[CRYO_GEOM_A3X]) / (3.0 * *d0);
  *yc = (g[CRYO_GEOM_A3X] * g[CRYO_GEOM_A2Y] - g[CRYO_GEOM_A3Y] * g[CRYO_GEOM_A2X]) / (3.0 * *d0);
}

/* sum over owned active cells of h 4 d0 (the cell mean times the area), m3 */
static double volume(const cryo_block *b, const cryo_seaice_state *s, int na) {
  double sum = 0.0;
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      const long c = CRYO_CELL(b, i, j);
      double d0, xc, yc;
      if (s->mask[c] == 0.0) continue;
      cell_det(s->geom, c, &d0, &xc, &yc);
      sum += 4.0 * d0 * s->h[c * na];
    }
  return sum;
}

/* The smallest h and a and the largest a over owned active cells: the means
 * (dG0) or the linear fields at the cells' corners (dG1). */
static void extremes(const cryo_block *b, const cryo_seaice_state *s, int na, double *hmin,
                     double *amin, double *amax) {
  *hmin = *amin = INFINITY;
  *amax = -INFINITY;
  for (int j = 0; j < b->ny; ++j)
    for (int i = 0; i < b->nx; ++i) {
      const long c = CRYO_CELL(b, i, j);
      if (s->mask[c] == 0.0) continue;
      double d0, xc, yc;
      cell_det(s->geom, c, &d0, &xc, &yc);
      for (int k = 0; k < (na == 3 ? 4 : 1); ++k) {
        const double X = (k & 1) ? 1.0 : -1.0, Y = (k & 2) ? 1.0 : -1.0;
        double hv = s->h[c * na], av = s->a[c * na];
        if (na == 3) {
          hv += s->h[c * 3 + 1] * (X - xc) + s->h[c * 3 + 2] * (Y - yc);
          av += s->a[c * 3 + 1] * (X - xc) + s->a[c * 3 + 2] * (Y - yc);
        }
        *hmin = fmin(*hmin, hv);
        *amin = fmin(*amin, av);
        *amax = fmax(*amax, av);
      }
    }
}

/* Test 1: an L-shaped island and a one-cell island on the 24 x 20 polar grid. */
static int is_land(int i, int j) {
  return (i >= 4 && i < 8 && j >= 5 && j < 13) || (i >= 8 && i < 11 && j >= 5 && j < 8) ||
         (i == 17 && j == 14);
}

static void conservation(int order) {
  const int nx = 24, ny = 20;
  const double d = 100e3;
  const grid_spec g = {1, -12 * d + 0.3 * d, -10 * d - 0.2 * d, d, d, 0.0, 0.0};
  const cryo_block b = test_si_block(nx, ny, d, d);
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.quad = 1;
  p.tracer_order = order;
  const int na = CRYO_SEAICE_NA(order);
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  build_geometry(&b, &g, &s);
  /* grid-frame velocity: rotational from psi = U L sin(x/L) cos(y/L), plus a
   * divergent part, about 0.3 m/s */
  const double U = 0.3, L = 0.5e6;
  double umax = 0.0;
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      const long n = CRYO_NODE(&b, i, j);
      const double x = g.x0 + i * d, y = g.y0 + j * d;
      s.u[n] = -U * sin(x / L) * sin(y / L) + 0.3 * U * cos(0.7 * x / L + 0.4);
      s.v[n] = -U * cos(x / L) * cos(y / L) + 0.3 * U * sin(0.5 * y / L - 0.2);
      umax = fmax(umax, hypot(s.u[n], s.v[n]));
    }
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      const double x = g.x0 + (i + 0.5) * d, y = g.y0 + (j + 0.5) * d;
      s.mask[c] = is_land(i, j) ? 0.0 : 1.0;
      s.h[c * na] = 1.0 + 0.5 * sin(1.3 * x / L) * cos(0.9 * y / L);
      s.a[c * na] = fmin(1.0, 0.6 + 0.5 * cos(0.8 * x / L + 1.1 * y / L));
    }
  /* Courant number against the projected cell size, which the true size exceeds */
  p.dt = (order == 0 ? 0.5 : 0.2) * d / umax;
  const double v0 = volume(&b, &s, na);
  double hmin = INFINITY, amin = INFINITY, amax = -INFINITY;
  for (int step = 0; step < 100; ++step) {
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_transport(&p, &b, &s, &test_si_ops), 0);
    double h1, a1, a2;
    extremes(&b, &s, na, &h1, &a1, &a2);
    hmin = fmin(hmin, h1);
    amin = fmin(amin, a1);
    amax = fmax(amax, a2);
  }
  const double err = fabs(volume(&b, &s, na) - v0) / v0;
  printf("\n    dG%d on the polar grid with land, 100 steps: volume error %.2e, h >= %.3g, "
         "a in [%.3g, %.3g]\n",
         order, err, hmin, amin, amax);
  CU_ASSERT(err <= 1e-13);
  CU_ASSERT(hmin >= -1e-15);
  CU_ASSERT(amin >= -1e-15);
  CU_ASSERT(amax <= 1.0 + 1e-15);
  test_si_state_free(&p, &s);
}

static void test_conservation_dg0(void) {
  conservation(0);
}

static void test_conservation_dg1(void) {
  conservation(1);
}

/* Test 2: the bell (Williamson et al. 1992, Eq. 95) of radius BELL_R radians
 * and height 1 m about the unit vector BELL_C. */
#define CAP_COLAT 35.0 /* degrees: the domain is the cap above 55 N */
#define BELL_R    (CAP_COLAT / 3.0 * DEGREE)
#define TURN      (40.0 * DEGREE) /* total rotation about the y axis */

static double bell(const double r[3]) {
  const double c[3] = {-sin(20.0 * DEGREE), 0.0, cos(20.0 * DEGREE)};
  const double dist = acos(fmin(1.0, r[0] * c[0] + r[1] * c[1] + r[2] * c[2]));
  return dist < BELL_R ? 0.5 * (1.0 + cos(PI * dist / BELL_R)) : 0.0;
}

/* Unit vector at reference point (X, Y) of cell (i, j): the bilinear
 * interpolation of its corners, onto the sphere. */
static void cell_point(const grid_spec *g, int i, int j, double X, double Y, double r[3]) {
  double rk[4][3];
  for (int k = 0; k < 4; ++k) {
    double lon, lat;
    node_coords(g, i + (k & 1), j + (k >> 1), &lon, &lat);
    unit_at(lon, lat, rk[k]);
  }
  const double w[4] = {(1 - X) * (1 - Y), (1 + X) * (1 - Y), (1 - X) * (1 + Y), (1 + X) * (1 + Y)};
  for (int m = 0; m < 3; ++m)
    r[m] = 0.25 * (w[0] * rk[0][m] + w[1] * rk[1][m] + w[2] * rk[2][m] + w[3] * rk[3][m]);
  const double norm = sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  for (int m = 0; m < 3; ++m)
    r[m] /= norm;
}

/* The bell's L2 projection on cell (i, j) in the basis {1, X - Xc, Y - Yc}
 * (3 x 3 Gauss points), na coefficients. */
static void project_bell(const grid_spec *g, const double *geom, long c, int i, int j, int na,
                         double *q) {
  const double gp[3] = {-sqrt(0.6), 0.0, sqrt(0.6)}, gw[3] = {5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0};
  double d0, xc, yc;
  cell_det(geom, c, &d0, &xc, &yc);
  const double d1 = 3.0 * d0 * xc, d2 = 3.0 * d0 * yc;
  double m0 = 0.0, m1 = 0.0, m2 = 0.0;
  for (int b = 0; b < 3; ++b)
    for (int a = 0; a < 3; ++a) {
      const double X = gp[a], Y = gp[b];
      double r[3];
      cell_point(g, i, j, X, Y, r);
      const double f = bell(r) * gw[a] * gw[b] * (d0 + d1 * X + d2 * Y);
      m0 += f;
      m1 += f * (X - xc);
      m2 += f * (Y - yc);
    }
  q[0] = m0 / (4.0 * d0);
  if (na == 1) return;
  const double a11 = 4.0 * d0 * (1.0 / 3.0 - xc * xc), a22 = 4.0 * d0 * (1.0 / 3.0 - yc * yc);
  const double a12 = -4.0 * d0 * xc * yc, det = a11 * a22 - a12 * a12;
  q[1] = (a22 * m1 - a12 * m2) / det;
  q[2] = (a11 * m2 - a12 * m1) / det;
}

/* Relative area-weighted L1 error of the cell means after carrying the bell
 * over the pole on an n x n grid, warped by w. */
static double bell_error(int n, int order, double warp) {
  const double half = 2.0 * RADIUS * tan(0.5 * CAP_COLAT * DEGREE), d = 2.0 * half / n;
  const grid_spec g = {1, -half, -half, d, d, warp, half};
  const cryo_block b = test_si_block(n, n, d, d);
  cryo_seaice_params p;
  cryo_seaice_params_cyclone(&p);
  p.quad = 1;
  p.tracer_order = order;
  const int na = CRYO_SEAICE_NA(order);
  cryo_seaice_state s;
  test_si_state_alloc(&p, &b, &s);
  build_geometry(&b, &g, &s);
  /* V = omega y x r, along east and north, then into the grid frames (nrot) */
  const double omega = 2.0 * PI / (12.0 * 86400.0);
  for (int j = 0; j <= n; ++j)
    for (int i = 0; i <= n; ++i) {
      const long k = CRYO_NODE(&b, i, j);
      double lon, lat, r[3];
      node_coords(&g, i, j, &lon, &lat);
      unit_at(lon, lat, r);
      const double V[3] = {omega * RADIUS * r[2], 0.0, -omega * RADIUS * r[0]};
      const double sl = sin(lon * DEGREE), cl = cos(lon * DEGREE);
      const double sp = sin(lat * DEGREE), cp = cos(lat * DEGREE);
      const double ue = -sl * V[0] + cl * V[1], vn = -sp * cl * V[0] - sp * sl * V[1] + cp * V[2];
      const double ca = s.nrot[2 * k], sa = s.nrot[2 * k + 1];
      s.u[k] = ca * ue + sa * vn;
      s.v[k] = -sa * ue + ca * vn;
    }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      project_bell(&g, s.geom, c, i, j, na, &s.h[c * na]);
      s.a[c * na] = s.h[c * na] > 0.0 ? 1.0 : 0.0;
    }
  const double time = TURN / omega, cfl = order == 0 ? 0.8 : 0.25;
  const int steps = (int)ceil(time * omega * RADIUS / (cfl * d));
  p.dt = time / steps;
  for (int step = 0; step < steps; ++step)
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_transport(&p, &b, &s, &test_si_ops), 0);
  double err = 0.0, norm = 0.0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      double d0, xc, yc, r[3];
      cell_det(s.geom, c, &d0, &xc, &yc);
      cell_point(&g, i, j, xc, yc, r);
      /* the exact field: the initial bell at the point rotated back by TURN */
      const double back[3] = {r[0] * cos(TURN) - r[2] * sin(TURN), r[1],
                              r[0] * sin(TURN) + r[2] * cos(TURN)};
      const double exact = bell(back);
      err += 4.0 * d0 * fabs(s.h[c * na] - exact);
      norm += 4.0 * d0 * exact;
    }
  test_si_state_free(&p, &s);
  return err / norm;
}

/* The errors of dG0 and dG1 at 32, 64 and 128 cells across, printed with
 * their observed orders, and the assertions of test 2. */
static void bell_convergence(double warp) {
  const int sizes[3] = {32, 64, 128};
  double e[2][3];
  for (int order = 0; order <= 1; ++order)
    for (int k = 0; k < 3; ++k)
      e[order][k] = bell_error(sizes[k], order, warp);
  printf("\n    cosine bell over the pole, warp %g: relative L1 error of the cell means\n"
         "    cells across   dG0       order   dG1       order\n",
         warp);
  for (int k = 0; k < 3; ++k) {
    if (k == 0)
      printf("    %5d          %.3e         %.3e\n", sizes[k], e[0][k], e[1][k]);
    else
      printf("    %5d          %.3e  %.2f   %.3e  %.2f\n", sizes[k], e[0][k],
             log2(e[0][k - 1] / e[0][k]), e[1][k], log2(e[1][k - 1] / e[1][k]));
  }
  for (int k = 0; k < 3; ++k)
    CU_ASSERT(e[1][k] < e[0][k]);
  for (int k = 1; k < 3; ++k) {
    CU_ASSERT(log2(e[0][k - 1] / e[0][k]) >= 0.8);
    CU_ASSERT(log2(e[1][k - 1] / e[1][k]) >= 1.5);
  }
}

static void test_bell_polar(void) {
  bell_convergence(0.0);
}

static void test_bell_warped(void) {
  bell_convergence(0.05);
}

/* Test 3: quadrilateral and rectangle transport on one Cartesian grid. */
static void cartesian(int order) {
  const int nx = 12, ny = 10;
  const double dx = 3000.0, dy = 2000.0;
  const grid_spec g = {0, 0.0, 0.0, dx, dy, 0.0, 0.0};
  const cryo_block b = test_si_block(nx, ny, dx, dy);
  cryo_seaice_params pq, pr;
  cryo_seaice_params_cyclone(&pq);
  pq.tracer_order = order;
  pq.quad = 1;
  pr = pq;
  pr.quad = 0;
  const int na = CRYO_SEAICE_NA(order);
  cryo_seaice_state sq, sr;
  test_si_state_alloc(&pq, &b, &sq);
  test_si_state_alloc(&pr, &b, &sr);
  build_geometry(&b, &g, &sq);
  double umax = 0.0;
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      const long n = CRYO_NODE(&b, i, j);
      sq.u[n] = sr.u[n] = 0.2 * sin(0.5 * i + 0.3) + 0.05 * j;
      sq.v[n] = sr.v[n] = 0.15 * cos(0.4 * j - 0.2 * i);
      umax = fmax(umax, fmax(fabs(sq.u[n]) / dx, fabs(sq.v[n]) / dy));
    }
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const long c = CRYO_CELL(&b, i, j);
      sq.mask[c] = sr.mask[c] = (i >= 4 && i < 6 && j >= 3 && j < 7) ? 0.0 : 1.0;
      for (int k = 0; k < na; ++k) {
        sq.h[c * na + k] = sr.h[c * na + k] =
            (k == 0 ? 1.0 : 0.1) + 0.3 * sin(0.7 * i + k) * j / ny;
        sq.a[c * na + k] = sr.a[c * na + k] = (k == 0 ? 0.5 : 0.05) * (1.0 + cos(0.6 * j - k));
      }
    }
  pq.dt = pr.dt = 0.25 / umax;
  for (int step = 0; step < 10; ++step) {
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_transport(&pq, &b, &sq, &test_si_ops), 0);
    CU_ASSERT_EQUAL_FATAL(cryo_seaice_transport(&pr, &b, &sr, &test_si_ops), 0);
  }
  double diff = 0.0, scale = 0.0;
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i)
      for (int k = 0; k < na; ++k) {
        const long q = CRYO_CELL(&b, i, j) * na + k;
        diff = fmax(diff, fmax(fabs(sq.h[q] - sr.h[q]), fabs(sq.a[q] - sr.a[q])));
        scale = fmax(scale, fmax(fabs(sr.h[q]), fabs(sr.a[q])));
      }
  printf("\n    dG%d, Cartesian grid: quadrilateral - rectangle transport %.2e relative\n", order,
         diff / scale);
  CU_ASSERT(diff <= 1e-13 * scale);
  test_si_state_free(&pq, &sq);
  test_si_state_free(&pr, &sr);
}

static void test_cartesian_dg0(void) {
  cartesian(0);
}

static void test_cartesian_dg1(void) {
  cartesian(1);
}

int main(void) {
  if (CU_initialize_registry() != CUE_SUCCESS) return 2;
  CU_pSuite s = CU_add_suite("seaice_quad_transport", NULL, NULL);
  CU_add_test(s, "dG0 conserves volume on a polar grid with land", test_conservation_dg0);
  CU_add_test(s, "dG1 conserves volume on a polar grid with land", test_conservation_dg1);
  CU_add_test(s, "cosine bell over the pole: orders, dG1 below dG0", test_bell_polar);
  CU_add_test(s, "cosine bell over the pole, warped grid", test_bell_warped);
  CU_add_test(s, "dG0 on a Cartesian grid equals the rectangle kernel", test_cartesian_dg0);
  CU_add_test(s, "dG1 on a Cartesian grid equals the rectangle kernel", test_cartesian_dg1);
  CU_basic_set_mode(CU_BRM_VERBOSE);
  CU_basic_run_tests();
  const unsigned failures = CU_get_number_of_failures();
  CU_cleanup_registry();
  return failures ? 1 : 0;
}
