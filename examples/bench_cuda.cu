/* CUDA C twins of the sea-ice stress and velocity kernels and of the land-ice
 * residual (examples/bench_cuda.h says what they share with the originals).
 * The arithmetic follows the C sources statement by statement, so that the
 * results differ from the serial host build only by rounding: nvcc contracts
 * a * b + c into FMAs (one rounding instead of two), as GCC does for nvptx
 * and does not do for the x86-64 host reference. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "bench_cuda.h"

/* landice_coef_make and landice_colour_make, so that the twin's constants and
 * colours are the library's; its GCC unroll pragmas mean nothing to nvcc. */
#pragma nv_diag_suppress 1675
extern "C" {
#include "landice_element.h"
}
#pragma nv_diag_default 1675

#define BLOCK   128
#define GAUSS_X 0.57735026918962576451 /* 1/sqrt(3) */
#define THIRD   (1.0 / 3.0)

static unsigned blocks(long n) {
  return (unsigned)((n + BLOCK - 1) / BLOCK);
}

/* Launch error, else the error of the kernel once it has finished. */
static int finish(void) {
  cudaError_t e = cudaGetLastError();
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  return (int)e;
}

__device__ __forceinline__ double dmax(double x, double y) {
  return x > y ? x : y;
}

__device__ __forceinline__ double dmin(double x, double y) {
  return x < y ? x : y;
}

/* ---- sea-ice stress (kernels/seaice_stress.c) */

struct stress_consts {
  double rdx2, rdy2, pstar, cstr, k1, k2, k3, dmin2, ralpha;
};

__device__ __forceinline__ double strength(double hq, double aq, const stress_consts &k) {
  return k.pstar * dmax(hq, 0.0) * exp(-k.cstr * (1.0 - dmin(dmax(aq, 0.0), 1.0)));
}

template <int NA>
__global__ void __launch_bounds__(BLOCK)
    stress_kernel(stress_consts k, long nxc, long ncell, const double *__restrict__ u,
                  const double *__restrict__ v, const double *__restrict__ h,
                  const double *__restrict__ a, const double *__restrict__ mask,
                  double *__restrict__ s11, double *__restrict__ s12, double *__restrict__ s22) {
  const long c = blockIdx.x * (long)BLOCK + threadIdx.x;
  if (c >= ncell || mask[c] == 0.0) return;
  const long n00 = c + (int)c / (int)nxc, nxn = nxc + 1;
  const long n10 = n00 + 1, n01 = n00 + nxn, n11 = n01 + 1;
  const double dub = u[n10] - u[n00], dut = u[n11] - u[n01];
  const double dul = u[n01] - u[n00], dur = u[n11] - u[n10];
  const double dvb = v[n10] - v[n00], dvt = v[n11] - v[n01];
  const double dvl = v[n01] - v[n00], dvr = v[n11] - v[n10];
  const double ux0 = k.rdx2 * (dub + dut), ux2 = k.rdx2 * (dut - dub);
  const double uy0 = k.rdy2 * (dul + dur), uy1 = k.rdy2 * (dur - dul);
  const double vx0 = k.rdx2 * (dvb + dvt), vx2 = k.rdx2 * (dvt - dvb);
  const double vy0 = k.rdy2 * (dvl + dvr), vy1 = k.rdy2 * (dvr - dvl);
  const double e12c = 0.5 * (uy0 + vx0), e12x = 0.5 * uy1, e12y = 0.5 * vx2;
  const double pc = NA == 1 ? strength(h[c], a[c], k) : 0.0;
  double p11[3] = {0.0, 0.0, 0.0}, p12[3] = {0.0, 0.0, 0.0}, p22[3] = {0.0, 0.0, 0.0};
#pragma unroll
  for (int g = 0; g < 4; ++g) {
    const double gx = (g & 1) ? GAUSS_X : -GAUSS_X;
    const double gy = (g & 2) ? GAUSS_X : -GAUSS_X;
    const double pg = NA == 1 ? pc
                              : strength(h[c * 3] + h[c * 3 + 1] * gx + h[c * 3 + 2] * gy,
                                         a[c * 3] + a[c * 3 + 1] * gx + a[c * 3 + 2] * gy, k);
    const double e11 = ux0 + ux2 * gy;
    const double e22 = vy0 + vy1 * gx;
    const double e12 = e12c + e12x * gx + e12y * gy;
    const double delta = sqrt(k.dmin2 + k.k1 * (e11 * e11 + e22 * e22) + 2.0 * k.k2 * e11 * e22 +
                              4.0 * k.k3 * e12 * e12);
    const double zeta = pg / (2.0 * delta);
    const double t11 = zeta * (k.k1 * e11 + k.k2 * e22) - 0.5 * pg;
    const double t22 = zeta * (k.k1 * e22 + k.k2 * e11) - 0.5 * pg;
    const double t12 = 2.0 * zeta * k.k3 * e12;
    const double phi[3] = {1.0, gx, gy};
#pragma unroll
    for (int m = 0; m < 3; ++m) {
      p11[m] += phi[m] * t11;
      p12[m] += phi[m] * t12;
      p22[m] += phi[m] * t22;
    }
  }
  const double wk[3] = {0.25, 0.75, 0.75};
#pragma unroll
  for (int m = 0; m < 3; ++m) {
    const long i = c * 3 + m;
    s11[i] += (wk[m] * p11[m] - s11[i]) * k.ralpha;
    s12[i] += (wk[m] * p12[m] - s12[i]) * k.ralpha;
    s22[i] += (wk[m] * p22[m] - s22[i]) * k.ralpha;
  }
}

extern "C" int cryo_bench_cuda_stress(const cryo_seaice_params *p, const cryo_block *b,
                                      const double *u, const double *v, const double *h,
                                      const double *a, const double *mask, double *s11, double *s12,
                                      double *s22) {
  const double re2 = 1.0 / (p->ecc * p->ecc);
  const stress_consts k = {0.5 / b->dx,   0.5 / b->dy, p->pstar, p->c_strength,
                           1.0 + re2,     1.0 - re2,   re2,      p->delta_min * p->delta_min,
                           1.0 / p->alpha};
  const long nxc = b->nx + 2, ncell = CRYO_NCELL(b);
  if (p->tracer_order == 1)
    stress_kernel<3><<<blocks(ncell), BLOCK>>>(k, nxc, ncell, u, v, h, a, mask, s11, s12, s22);
  else
    stress_kernel<1><<<blocks(ncell), BLOCK>>>(k, nxc, ncell, u, v, h, a, mask, s11, s12, s22);
  return finish();
}

/* ---- sea-ice velocity (kernels/seaice_velocity.c) */

struct velocity_consts {
  double rdx2, rdy2, dt, beta, rho_ice, h_min, tau_air, drag_o, f;
};

__device__ __forceinline__ void corner_force(long c, double sa, double sb, double rdx2, double rdy2,
                                             const double *__restrict__ s11,
                                             const double *__restrict__ s12,
                                             const double *__restrict__ s22, double *fx,
                                             double *fy) {
  const long i = c * 3;
  *fx -= sa * rdx2 * (s11[i] + sb * THIRD * s11[i + 2]) +
         sb * rdy2 * (s12[i] + sa * THIRD * s12[i + 1]);
  *fy -= sa * rdx2 * (s12[i] + sb * THIRD * s12[i + 2]) +
         sb * rdy2 * (s22[i] + sa * THIRD * s22[i + 1]);
}

template <int NA>
__device__ __forceinline__ double corner_tracer(const double *__restrict__ q, long c, double sa,
                                                double sb) {
  if (NA == 1) return q[c];
  return q[c * 3] + THIRD * (sa * q[c * 3 + 1] + sb * q[c * 3 + 2]);
}

template <int NA>
__global__ void __launch_bounds__(BLOCK)
    velocity_kernel(velocity_consts k, int nx, long nnode, const double *__restrict__ s11,
                    const double *__restrict__ s12, const double *__restrict__ s22,
                    const double *__restrict__ h, const double *__restrict__ a,
                    const double *__restrict__ mask, const double *__restrict__ uair,
                    const double *__restrict__ vair, const double *__restrict__ uocn,
                    const double *__restrict__ vocn, const double *__restrict__ u_n,
                    const double *__restrict__ v_n, double *__restrict__ u,
                    double *__restrict__ v) {
  const long e = blockIdx.x * (long)BLOCK + threadIdx.x;
  if (e >= nnode) return;
  const int j = (int)e / (nx + 1), i = (int)e - j * (nx + 1);
  const long n = (long)(j + 1) * (nx + 3) + i + 1, cur = (long)(j + 1) * (nx + 2) + i + 1;
  const long nxc = nx + 2, cul = cur - 1, clr = cur - nxc, cll = clr - 1;
  if (mask[cll] * mask[clr] * mask[cul] * mask[cur] == 0.0) {
    u[n] = 0.0;
    v[n] = 0.0;
    return;
  }
  double fx = 0.0, fy = 0.0;
  corner_force(cll, 1.0, 1.0, k.rdx2, k.rdy2, s11, s12, s22, &fx, &fy);
  corner_force(clr, -1.0, 1.0, k.rdx2, k.rdy2, s11, s12, s22, &fx, &fy);
  corner_force(cul, 1.0, -1.0, k.rdx2, k.rdy2, s11, s12, s22, &fx, &fy);
  corner_force(cur, -1.0, -1.0, k.rdx2, k.rdy2, s11, s12, s22, &fx, &fy);
  const double hn =
      0.25 * (corner_tracer<NA>(h, cll, 1.0, 1.0) + corner_tracer<NA>(h, clr, -1.0, 1.0) +
              corner_tracer<NA>(h, cul, 1.0, -1.0) + corner_tracer<NA>(h, cur, -1.0, -1.0));
  const double an =
      0.25 * (corner_tracer<NA>(a, cll, 1.0, 1.0) + corner_tracer<NA>(a, clr, -1.0, 1.0) +
              corner_tracer<NA>(a, cul, 1.0, -1.0) + corner_tracer<NA>(a, cur, -1.0, -1.0));
  const double ac = dmin(dmax(an, 0.0), 1.0);
  const double m = k.rho_ice * dmax(hn, k.h_min);
  const double ua = uair[n], va = vair[n], uo = uocn[n], vo = vocn[n];
  const double up = u[n], vp = v[n];
  const double tau = ac * k.tau_air * sqrt(ua * ua + va * va);
  const double c = ac * k.drag_o * sqrt((uo - up) * (uo - up) + (vo - vp) * (vo - vp));
  const double g = k.dt * m * k.f;
  const double d = (1.0 + k.beta) * m + k.dt * c;
  const double ru = m * (k.beta * up + u_n[n]) + k.dt * (fx + tau * ua + c * uo) - g * vo;
  const double rv = m * (k.beta * vp + v_n[n]) + k.dt * (fy + tau * va + c * vo) + g * uo;
  const double rdet = 1.0 / (d * d + g * g);
  u[n] = (d * ru + g * rv) * rdet;
  v[n] = (d * rv - g * ru) * rdet;
}

extern "C" int cryo_bench_cuda_velocity(const cryo_seaice_params *p, const cryo_block *b,
                                        const double *s11, const double *s12, const double *s22,
                                        const double *h, const double *a, const double *mask,
                                        const double *uair, const double *vair, const double *uocn,
                                        const double *vocn, const double *u_n, const double *v_n,
                                        double *u, double *v) {
  const velocity_consts k = {0.5 / b->dx,
                             0.5 / b->dy,
                             p->dt,
                             p->beta,
                             p->rho_ice,
                             p->h_min,
                             p->rho_air * p->c_air,
                             p->rho_ocean * p->c_ocean,
                             p->coriolis};
  const long nnode = (long)(b->nx + 1) * (b->ny + 1);
  if (p->tracer_order == 1)
    velocity_kernel<3><<<blocks(nnode), BLOCK>>>(k, b->nx, nnode, s11, s12, s22, h, a, mask, uair,
                                                 vair, uocn, vocn, u_n, v_n, u, v);
  else
    velocity_kernel<1><<<blocks(nnode), BLOCK>>>(k, b->nx, nnode, s11, s12, s22, h, a, mask, uair,
                                                 vair, uocn, vocn, u_n, v_n, u, v);
  return finish();
}

/* ---- land-ice residual (kernels/landice_residual.c, kernels/landice_element.h) */

struct gauss {
  double fx0, fx1, fy0, fy1, fz0, fz1;
  double z_xi, z_eta, inv_zz, wdet;
};

__device__ __forceinline__ double g_fx(const gauss &g, int a) {
  return (a & 1) ? g.fx1 : g.fx0;
}
__device__ __forceinline__ double g_fy(const gauss &g, int a) {
  return (a & 2) ? g.fy1 : g.fy0;
}
__device__ __forceinline__ double g_fz(const gauss &g, int a) {
  return (a & 4) ? g.fz1 : g.fz0;
}
__device__ __forceinline__ double g_wyz(const gauss &g, int a) {
  return (0.125 * g_fy(g, a)) * g_fz(g, a);
}
__device__ __forceinline__ double g_wxz(const gauss &g, int a) {
  return (0.125 * g_fx(g, a)) * g_fz(g, a);
}
__device__ __forceinline__ double g_wxy(const gauss &g, int a) {
  return (0.125 * g_fx(g, a)) * g_fy(g, a);
}

__device__ __forceinline__ void ref_deriv(const gauss &g, const double *f, int stride,
                                          double d[3]) {
  double sx = 0.0, sy = 0.0, sz = 0.0;
#pragma unroll
  for (int e = 0; e < 4; ++e) {
    const int ax = 2 * e, ay = (e & 1) | ((e & 2) << 1), az = e;
    const double wx = g_wyz(g, ax), wy = g_wxz(g, ay), wz = g_wxy(g, az);
    sx += wx * f[stride * (ax + 1)] - wx * f[stride * ax];
    sy += wy * f[stride * (ay + 2)] - wy * f[stride * ay];
    sz += wz * f[stride * (az + 4)] - wz * f[stride * az];
  }
  d[0] = sx;
  d[1] = sy;
  d[2] = sz;
}

__device__ __forceinline__ gauss gauss_make(const landice_coef &c, const double z[8], int q) {
  gauss g;
  const double xi = (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
  const double eta = (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
  const double zeta = (q & 4) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
  g.fx0 = 1.0 - xi;
  g.fx1 = 1.0 + xi;
  g.fy0 = 1.0 - eta;
  g.fy1 = 1.0 + eta;
  g.fz0 = 1.0 - zeta;
  g.fz1 = 1.0 + zeta;
  double dz[3];
  ref_deriv(g, z, 1, dz);
  g.z_xi = dz[0];
  g.z_eta = dz[1];
  g.inv_zz = 1.0 / dz[2];
  g.wdet = c.half_dx * c.half_dy * dz[2];
  return g;
}

__device__ __forceinline__ double strain_at(const landice_coef &c, const gauss &g,
                                            const double u[16], double grad[6]) {
  double du[3], dv[3];
  ref_deriv(g, u, 2, du);
  ref_deriv(g, u + 1, 2, dv);
  const double uz = du[2] * g.inv_zz, vz = dv[2] * g.inv_zz;
  const double ux = (du[0] - uz * g.z_xi) * c.inv_hdx, uy = (du[1] - uz * g.z_eta) * c.inv_hdy;
  const double vx = (dv[0] - vz * g.z_xi) * c.inv_hdx, vy = (dv[1] - vz * g.z_eta) * c.inv_hdy;
  grad[0] = ux;
  grad[1] = uy;
  grad[2] = uz;
  grad[3] = vx;
  grad[4] = vy;
  grad[5] = vz;
  const double sxy = uy + vx;
  return ux * ux + vy * vy + ux * vy + 0.25 * (sxy * sxy + uz * uz + vz * vz);
}

__device__ __forceinline__ void surface_grad(const landice_coef &c, const double s[4], double xi,
                                             double eta, double *sx, double *sy) {
  double ax = 0.0, ay = 0.0;
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    const double sq = (q & 1) ? 1.0 : -1.0, tq = (q & 2) ? 1.0 : -1.0;
    ax += s[q] * 0.25 * sq * (1.0 + tq * eta);
    ay += s[q] * 0.25 * tq * (1.0 + sq * xi);
  }
  *sx = ax / c.half_dx + c.slope_x;
  *sy = ay / c.half_dy + c.slope_y;
}

__device__ __forceinline__ void node_grad(const landice_coef &c, const gauss &g, int a, double *phi,
                                          double *gx, double *gy, double *gz) {
  const double wyz = g_wyz(g, a), wxz = g_wxz(g, a), wxy = g_wxy(g, a);
  const double dxi = (a & 1) ? wyz : -wyz, deta = (a & 2) ? wxz : -wxz;
  const double z = ((a & 4) ? wxy : -wxy) * g.inv_zz;
  *phi = wyz * g_fx(g, a);
  *gz = z;
  *gx = (dxi - z * g.z_xi) * c.inv_hdx;
  *gy = (deta - z * g.z_eta) * c.inv_hdy;
}

__device__ __forceinline__ double bed_basis(int m, double xi, double eta) {
  return 0.25 * (1.0 + ((m & 1) ? xi : -xi)) * (1.0 + ((m & 2) ? eta : -eta));
}

/* landice_elem_gather and landice_elem_residual (with the CUDA library pow);
 * afac_e is the element's A^(-1/n). */
__device__ __forceinline__ void
elem_residual(const landice_coef &c, const long n[4], int k, int nz, const double *__restrict__ vel,
              const double *__restrict__ bed, const double *__restrict__ thk_node,
              const double *__restrict__ beta2, double afac_e, double r[16]) {
  const int nlev = 2 * (nz + 1);
  const double lo = (double)k / nz, hi = (double)(k + 1) / nz;
  double z[8], s[4], b2n[4], u[16];
#pragma unroll
  for (int m = 0; m < 4; ++m) {
    const double plane = ((m & 1) ? 2.0 * c.half_dx * c.slope_x : 0.0) +
                         ((m & 2) ? 2.0 * c.half_dy * c.slope_y : 0.0);
    const double bm = bed[n[m]], hm = thk_node[n[m]];
    z[m] = bm + lo * hm + plane;
    z[m + 4] = bm + hi * hm + plane;
    s[m] = bm + hm;
    b2n[m] = beta2[n[m]];
    const double *um = vel + n[m] * nlev + 2 * k;
    u[2 * m] = um[0];
    u[2 * m + 1] = um[1];
    u[2 * m + 8] = um[2];
    u[2 * m + 9] = um[3];
  }
  double tmu[8];
  for (int q = 0; q < 8; ++q) {
    const gauss g = gauss_make(c, z, q);
    double grad[6];
    const double e2 = strain_at(c, g, u, grad) + c.eps2;
    tmu[q] = afac_e * pow(e2, c.mu_exp) * g.wdet;
  }
#pragma unroll
  for (int a = 0; a < 16; ++a)
    r[a] = 0.0;
  for (int q = 0; q < 8; ++q) {
    const gauss g = gauss_make(c, z, q);
    double grad[6], sx, sy;
    surface_grad(c, s, (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP,
                 (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP, &sx, &sy);
    strain_at(c, g, u, grad);
    const double two_mu = tmu[q];
    const double s00 = two_mu * (2.0 * grad[0] + grad[4]);
    const double s11 = two_mu * (2.0 * grad[4] + grad[0]);
    const double s01 = two_mu * 0.5 * (grad[1] + grad[3]);
    const double s02 = two_mu * 0.5 * grad[2];
    const double s12 = two_mu * 0.5 * grad[5];
    const double f0 = c.rhog * sx * g.wdet, f1 = c.rhog * sy * g.wdet;
#pragma unroll
    for (int a = 0; a < 8; ++a) {
      double phi, gx, gy, gz;
      node_grad(c, g, a, &phi, &gx, &gy, &gz);
      r[2 * a] += s00 * gx + s01 * gy + s02 * gz + f0 * phi;
      r[2 * a + 1] += s01 * gx + s11 * gy + s12 * gz + f1 * phi;
    }
  }
  if (k == 0 && c.friction) {
    const double w = c.half_dx * c.half_dy;
    for (int q = 0; q < 4; ++q) {
      const double xi = (q & 1) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
      const double eta = (q & 2) ? CRYO_LANDICE_GP : -CRYO_LANDICE_GP;
      double b2 = 0.0, ub = 0.0, vb = 0.0;
#pragma unroll
      for (int m = 0; m < 4; ++m) {
        const double psi = bed_basis(m, xi, eta);
        b2 += psi * b2n[m];
        ub += psi * u[2 * m];
        vb += psi * u[2 * m + 1];
      }
#pragma unroll
      for (int m = 0; m < 4; ++m) {
        const double psi = bed_basis(m, xi, eta);
        r[2 * m] += w * b2 * ub * psi;
        r[2 * m + 1] += w * b2 * vb * psi;
      }
    }
  }
}

__global__ void __launch_bounds__(BLOCK) zero_kernel(long n, double *__restrict__ x) {
  const long e = blockIdx.x * (long)BLOCK + threadIdx.x;
  if (e < n) x[e] = 0.0;
}

struct colour_args {
  int fi, ni, fj, fk, nk, nz, stride;
  int i0, j0, nxg, nyg, px, py;
  long nel;
};

__global__ void __launch_bounds__(BLOCK)
    residual_colour_kernel(landice_coef c, colour_args t, const double *__restrict__ vel,
                           const double *__restrict__ bed, const double *__restrict__ thk_node,
                           const double *__restrict__ beta2, const double *__restrict__ afac,
                           double *__restrict__ res) {
  const long e = blockIdx.x * (long)BLOCK + threadIdx.x;
  if (e >= t.nel) return;
  const int k = t.fk + 2 * (int)(e % t.nk), i = t.fi + 2 * (int)(e / t.nk % t.ni);
  const int j = t.fj + 2 * (int)(e / ((long)t.nk * t.ni));
  if (!((t.px || (t.i0 + i >= 0 && t.i0 + i < t.nxg)) &&
        (t.py || (t.j0 + j >= 0 && t.j0 + j < t.nyg))))
    return;
  long n[4];
#pragma unroll
  for (int m = 0; m < 4; ++m)
    n[m] = (long)(j + 1 + (m >> 1)) * t.stride + (i + 1 + (m & 1));
  double r[16];
  /* cell (i, j) of the cell arrays: a row of the nodes' stride less one */
  const double afac_e = afac[((long)(j + 1) * (t.stride - 1) + (i + 1)) * t.nz + k];
  elem_residual(c, n, k, t.nz, vel, bed, thk_node, beta2, afac_e, r);
  const int nlev = 2 * (t.nz + 1);
#pragma unroll
  for (int m = 0; m < 4; ++m) {
    double *rm = res + n[m] * nlev + 2 * k;
    rm[0] += r[2 * m];
    rm[1] += r[2 * m + 1];
    rm[2] += r[2 * m + 8];
    rm[3] += r[2 * m + 9];
  }
}

/* cryo_landice_dirichlet for the residual alone (matrix NULL). */
__global__ void __launch_bounds__(BLOCK)
    dirichlet_kernel(colour_args t, int nx, long nrow, int no_slip, int lat,
                     double *__restrict__ res) {
  const long e = blockIdx.x * (long)BLOCK + threadIdx.x;
  if (e >= nrow) return;
  const int i = (int)(e % (nx + 1)), j = (int)(e / (nx + 1));
  const long node = (long)(j + 1) * t.stride + (i + 1);
  const int nlev = 2 * (t.nz + 1), gi = t.i0 + i, gj = t.j0 + j;
  for (int k = 0; k <= t.nz; ++k) {
    const int fixed =
        (no_slip && k == 0) ||
        (lat && ((!t.px && (gi == 0 || gi == t.nxg)) || (!t.py && (gj == 0 || gj == t.nyg))));
    if (fixed) {
      res[node * nlev + 2 * k] = 0.0;
      res[node * nlev + 2 * k + 1] = 0.0;
    }
  }
}

extern "C" int cryo_bench_cuda_residual(const cryo_block *b, const cryo_landice_params *p,
                                        const cryo_landice_state *s, const double *vel,
                                        double *res) {
  const landice_coef c = landice_coef_make(b, p);
  const int nz = p->n_layers;
  const long nres = CRYO_NNODE(b) * 2 * (nz + 1);
  zero_kernel<<<blocks(nres), BLOCK>>>(nres, res);
  colour_args t = {0,
                   0,
                   0,
                   0,
                   0,
                   nz,
                   b->nx + 3,
                   b->i0,
                   b->j0,
                   b->nx_global,
                   b->ny_global,
                   b->periodic_x,
                   b->periodic_y,
                   0};
  for (int colour = 0; colour < 8; ++colour) {
    const landice_colour col = landice_colour_make(b, nz, colour);
    t.fi = col.fi;
    t.ni = col.ni;
    t.fj = col.fj;
    t.fk = col.fk;
    t.nk = col.nk;
    t.nel = (long)col.ni * col.nj * col.nk;
    if (t.nel > 0)
      residual_colour_kernel<<<blocks(t.nel), BLOCK>>>(c, t, vel, s->bed, s->thk_node, s->beta2,
                                                       s->afac, res);
  }
  const long nrow = (long)(b->nx + 1) * (b->ny + 1);
  dirichlet_kernel<<<blocks(nrow), BLOCK>>>(t, b->nx, nrow, p->no_slip,
                                            p->lateral_bc == CRYO_LANDICE_LATERAL_DIRICHLET, res);
  return finish();
}

extern "C" int cryo_bench_cuda_registers(const char *twin) {
  cudaFuncAttributes attr;
  cudaError_t e = cudaErrorInvalidValue;
  if (!strcmp(twin, "stress"))
    e = cudaFuncGetAttributes(&attr, stress_kernel<1>);
  else if (!strcmp(twin, "velocity"))
    e = cudaFuncGetAttributes(&attr, velocity_kernel<1>);
  else if (!strcmp(twin, "residual"))
    e = cudaFuncGetAttributes(&attr, residual_colour_kernel);
  return e == cudaSuccess ? attr.numRegs : -1;
}

extern "C" int cryo_bench_cuda_start(void) {
  cudaError_t e = cudaSetDevice(0);
  if (e == cudaSuccess) e = cudaFree(0);
  return (int)e;
}

extern "C" int cryo_bench_cuda_init(const void *probe, char *name, size_t len) {
  cudaPointerAttributes pa;
  cudaError_t e = cudaPointerGetAttributes(&pa, probe);
  if (e != cudaSuccess) return (int)e;
  if (pa.type != cudaMemoryTypeDevice) return (int)cudaErrorInvalidDevicePointer;
  cudaDeviceProp prop;
  e = cudaGetDeviceProperties(&prop, pa.device);
  if (e != cudaSuccess) return (int)e;
  snprintf(name, len, "%s (sm_%d%d, %d SMs)", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount);
  return 0;
}

extern "C" const char *cryo_bench_cuda_error(int code) {
  return cudaGetErrorString((cudaError_t)code);
}
