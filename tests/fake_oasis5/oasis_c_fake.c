/* Successful answers of OASIS3-MCT 5.0's C API without a coupled run (see
 * oasis_c.h here): kinfo 0 (OASIS_Ok), ids counting from 1, the world as the
 * component's communicator, put and get reporting "sent" (4) and "received"
 * (3), and 1 from oasis_c_start_grids_writing, whose 5.0 return value is the
 * obsolete "grids wanted" flag of oasis_start_grids_writing, always 1. */
#include "oasis_c.h"

int oasis_fake_grids_written;
static int next_id = 1;

int oasis_c_init_comp(int *comp_id, const char *comp_name, const bool coupled) {
  (void)comp_name;
  (void)coupled;
  *comp_id = next_id++;
  return 0;
}

int oasis_c_get_localcomm(MPI_Comm *localcomm) {
  *localcomm = MPI_COMM_WORLD;
  return 0;
}

int oasis_c_def_partition(int *id_part, const int kparal_size, const int *kparal, const int ig_size,
                          const char *name) {
  (void)kparal_size, (void)kparal, (void)ig_size, (void)name;
  *id_part = next_id++;
  return 0;
}

int oasis_c_def_var(int *id_var, const char *name, const int id_part, const int bundle_size,
                    const int kinout, const int type) {
  (void)name, (void)id_part, (void)bundle_size, (void)kinout, (void)type;
  *id_var = next_id++;
  return 0;
}

int oasis_c_enddef(void) {
  return 0;
}

int oasis_c_put(const int var_id, const int kstep, const int x_size, const int y_size,
                const int bundle_size, const int fkind, const int storage, const void *fld1,
                const bool write_restart, int *kinfo) {
  (void)var_id, (void)kstep, (void)x_size, (void)y_size, (void)bundle_size, (void)fkind,
      (void)storage, (void)fld1, (void)write_restart;
  *kinfo = 4;
  return 0;
}

int oasis_c_get(const int var_id, const int kstep, const int x_size, const int y_size,
                const int bundle_size, const int fkind, const int storage, void *fld1, int *kinfo) {
  (void)var_id, (void)kstep, (void)x_size, (void)y_size, (void)bundle_size, (void)fkind,
      (void)storage, (void)fld1;
  *kinfo = 3;
  return 0;
}

int oasis_c_start_grids_writing(void) {
  return 1;
}

int oasis_c_write_grid(const char *cgrid, const int nx, const int ny, const int nx_loc,
                       const int ny_loc, const double *lon, const double *lat, const int partid) {
  (void)cgrid, (void)nx, (void)ny, (void)nx_loc, (void)ny_loc, (void)lon, (void)lat, (void)partid;
  return 0;
}

int oasis_c_write_corner(const char *cgrid, const int nx, const int ny, const int nc,
                         const int nx_loc, const int ny_loc, const double *clo, const double *cla,
                         const int partid) {
  (void)cgrid, (void)nx, (void)ny, (void)nc, (void)nx_loc, (void)ny_loc, (void)clo, (void)cla,
      (void)partid;
  return 0;
}

int oasis_c_write_mask(const char *cgrid, const int nx, const int ny, const int nx_loc,
                       const int ny_loc, const int *mask, const int partid, const int companion) {
  (void)cgrid, (void)nx, (void)ny, (void)nx_loc, (void)ny_loc, (void)mask, (void)partid,
      (void)companion;
  return 0;
}

int oasis_c_write_area(const char *cgrid, const int nx, const int ny, const int nx_loc,
                       const int ny_loc, const double *area, const int partid) {
  (void)cgrid, (void)nx, (void)ny, (void)nx_loc, (void)ny_loc, (void)area, (void)partid;
  return 0;
}

int oasis_c_terminate_grids_writing(void) {
  oasis_fake_grids_written++;
  return 0;
}

int oasis_c_terminate(void) {
  return 0;
}
