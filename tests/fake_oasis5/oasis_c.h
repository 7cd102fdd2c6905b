/* A stand-in for OASIS3-MCT 5.0's oasis_c.h, so that the C-API path of
 * coupling/oasis_c.c is built and tested where no 5.x is installed
 * (tests/test_oasis_c5.c). The prototypes and constants that path uses, as
 * 5.0 declares them; the functions (oasis_c_fake.c) do no coupling and
 * return what 5.0 returns on success, including the obsolete flag 1 of
 * oasis_c_start_grids_writing. */
#ifndef OASIS_C_H
#define OASIS_C_H

#include <mpi.h>
#include <stdbool.h>

#define OASIS_COUPLED      true
#define OASIS_DOUBLE       8
#define OASIS_COL_MAJOR    0
#define OASIS_NO_RESTART   false
#define OASIS_No_Part      -1
#define OASIS_No_Companion -1

int oasis_c_init_comp(int *comp_id, const char *comp_name, const bool coupled);
int oasis_c_get_localcomm(MPI_Comm *localcomm);
int oasis_c_def_partition(int *id_part, const int kparal_size, const int *kparal, const int ig_size,
                          const char *name);
int oasis_c_def_var(int *id_var, const char *name, const int id_part, const int bundle_size,
                    const int kinout, const int type);
int oasis_c_enddef(void);
int oasis_c_put(const int var_id, const int kstep, const int x_size, const int y_size,
                const int bundle_size, const int fkind, const int storage, const void *fld1,
                const bool write_restart, int *kinfo);
int oasis_c_get(const int var_id, const int kstep, const int x_size, const int y_size,
                const int bundle_size, const int fkind, const int storage, void *fld1, int *kinfo);
int oasis_c_start_grids_writing(void);
int oasis_c_write_grid(const char *cgrid, const int nx, const int ny, const int nx_loc,
                       const int ny_loc, const double *lon, const double *lat, const int partid);
int oasis_c_write_corner(const char *cgrid, const int nx, const int ny, const int nc,
                         const int nx_loc, const int ny_loc, const double *clo, const double *cla,
                         const int partid);
int oasis_c_write_mask(const char *cgrid, const int nx, const int ny, const int nx_loc,
                       const int ny_loc, const int *mask, const int partid, const int companion);
int oasis_c_write_area(const char *cgrid, const int nx, const int ny, const int nx_loc,
                       const int ny_loc, const double *area, const int partid);
int oasis_c_terminate_grids_writing(void);
int oasis_c_terminate(void);

/* Test hook: the grids written since the start, to check the calls arrived. */
extern int oasis_fake_grids_written;

#endif
