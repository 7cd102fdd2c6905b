! ISO_C_BINDING bridge from cryodyn's C coupling layer (coupling/oasis_c.c) to
! the OASIS3-MCT 2.0-era Fortran API of the Debian liboasis3-dev package, which
! has no C API (docs/design.md, Coupling: OASIS3-MCT).
!
! Each routine is a thin call with C-compatible arguments: C strings arrive
! NUL-terminated, integers as c_int, fields as contiguous real(c_double) arrays
! of the local partition size. Every routine hands back the OASIS kinfo
! unchanged; coupling/oasis_c.c checks it and turns it into a cryodyn error.
! kinfo is always passed because some 2.0 routines write it unconditionally.
module cryo_oasis_bridge
  use, intrinsic :: iso_c_binding, only: c_int, c_double, c_char, c_null_char
  use mod_oasis
  implicit none
  private
  public :: cryo_oasis_f_init_comp, cryo_oasis_f_get_localcomm, cryo_oasis_f_def_partition, &
            cryo_oasis_f_def_var, cryo_oasis_f_enddef, cryo_oasis_f_put, cryo_oasis_f_get, &
            cryo_oasis_f_terminate, cryo_oasis_f_start_grids_writing, cryo_oasis_f_write_grid, &
            cryo_oasis_f_write_corner, cryo_oasis_f_write_mask, cryo_oasis_f_write_area, &
            cryo_oasis_f_terminate_grids_writing

contains

  ! Fortran copy of a NUL-terminated C string (OASIS compares names with their
  ! exact length, so no trailing blanks may be added).
  function c_to_f_string(cstr) result(fstr)
    character(kind=c_char), intent(in) :: cstr(*)
    character(len=:), allocatable :: fstr
    integer :: n, i

    n = 0
    do while (cstr(n + 1) /= c_null_char)
      n = n + 1
    end do
    allocate (character(len=n) :: fstr)
    do i = 1, n
      fstr(i:i) = cstr(i)
    end do
  end function c_to_f_string

  ! oasis_init_comp: the 2.0 API has no "coupled" argument and keeps 6 characters of the name.
  subroutine cryo_oasis_f_init_comp(compid, name, kinfo) bind(C, name="cryo_oasis_f_init_comp")
    integer(c_int), intent(out) :: compid, kinfo
    character(kind=c_char), intent(in) :: name(*)
    integer :: id, info

    info = 0
    call oasis_init_comp(id, c_to_f_string(name), info)
    compid = id
    kinfo = info
  end subroutine cryo_oasis_f_init_comp

  ! The component's local communicator as a Fortran handle (C converts it with MPI_Comm_f2c).
  subroutine cryo_oasis_f_get_localcomm(fcomm, kinfo) bind(C, name="cryo_oasis_f_get_localcomm")
    integer(c_int), intent(out) :: fcomm, kinfo
    integer :: comm, info

    info = 0
    call oasis_get_localcomm(comm, info)
    fcomm = comm
    kinfo = info
  end subroutine cryo_oasis_f_get_localcomm

  ! kparal as described in the OASIS user guide (0-based offsets); 2.0 takes no partition name.
  subroutine cryo_oasis_f_def_partition(part_id, nparal, kparal, global_size, kinfo) &
    bind(C, name="cryo_oasis_f_def_partition")
    integer(c_int), intent(out) :: part_id, kinfo
    integer(c_int), value, intent(in) :: nparal, global_size
    integer(c_int), intent(in) :: kparal(nparal)
    integer :: id, info
    integer, allocatable :: paral(:)

    allocate (paral(nparal))
    paral = kparal
    info = 0
    call oasis_def_partition(id, paral, info, global_size)
    part_id = id
    kinfo = info
  end subroutine cryo_oasis_f_def_partition

  ! One double-precision field (bundle size 1) on a partition with local_size points,
  ! declared 1-D to OASIS; kinout is OASIS_In (21) or OASIS_Out (20).
  subroutine cryo_oasis_f_def_var(var_id, name, part_id, kinout, local_size, kinfo) &
    bind(C, name="cryo_oasis_f_def_var")
    integer(c_int), intent(out) :: var_id, kinfo
    character(kind=c_char), intent(in) :: name(*)
    integer(c_int), value, intent(in) :: part_id, kinout, local_size
    integer :: id, info, nodims(2), var_shape(2)

    nodims = [1, 1]
    var_shape = [1, local_size]
    info = 0
    call oasis_def_var(id, c_to_f_string(name), part_id, nodims, kinout, var_shape, OASIS_Double, &
                       info)
    var_id = id
    kinfo = info
  end subroutine cryo_oasis_f_def_var

  subroutine cryo_oasis_f_enddef(kinfo) bind(C, name="cryo_oasis_f_enddef")
    integer(c_int), intent(out) :: kinfo
    integer :: info

    info = 0
    call oasis_enddef(info)
    kinfo = info
  end subroutine cryo_oasis_f_enddef

  ! date: seconds since the start of the run; field: n values in the partition's order.
  subroutine cryo_oasis_f_put(var_id, date, n, field, kinfo) bind(C, name="cryo_oasis_f_put")
    integer(c_int), value, intent(in) :: var_id, date, n
    real(c_double), intent(in) :: field(n)
    integer(c_int), intent(out) :: kinfo
    integer :: info

    info = 0
    call oasis_put(var_id, date, field, info)
    kinfo = info
  end subroutine cryo_oasis_f_put

  ! On a date that is not a coupling date OASIS returns 0 and leaves field untouched.
  subroutine cryo_oasis_f_get(var_id, date, n, field, kinfo) bind(C, name="cryo_oasis_f_get")
    integer(c_int), value, intent(in) :: var_id, date, n
    real(c_double), intent(inout) :: field(n)
    integer(c_int), intent(out) :: kinfo
    integer :: info

    info = 0
    call oasis_get(var_id, date, field, info)
    kinfo = info
  end subroutine cryo_oasis_f_get

  subroutine cryo_oasis_f_terminate(kinfo) bind(C, name="cryo_oasis_f_terminate")
    integer(c_int), intent(out) :: kinfo
    integer :: info

    info = 0
    call oasis_terminate(info)
    kinfo = info
  end subroutine cryo_oasis_f_terminate

  ! Grid description for a SCRIP remapping (grids.nc, masks.nc, areas.nc). The 2.0 routines
  ! only buffer the global arrays on the component's root rank (any other rank makes them abort)
  ! and take no kinfo; oasis_enddef writes the buffered grids of one component after the other,
  ! so components never write the same file at once. start returns flag 1 when the grids are
  ! wanted (2.0 always asks for them).
  subroutine cryo_oasis_f_start_grids_writing(flag) bind(C, name="cryo_oasis_f_start_grids_writing")
    integer(c_int), intent(out) :: flag
    integer :: iwrite

    iwrite = 0
    call oasis_start_grids_writing(iwrite)
    flag = iwrite
  end subroutine cryo_oasis_f_start_grids_writing

  ! lon, lat: degrees at the nx x ny cell centres, x fastest (Fortran (nx, ny)).
  subroutine cryo_oasis_f_write_grid(name, nx, ny, lon, lat) bind(C, name="cryo_oasis_f_write_grid")
    character(kind=c_char), intent(in) :: name(*)
    integer(c_int), value, intent(in) :: nx, ny
    real(c_double), intent(in) :: lon(nx, ny), lat(nx, ny)

    call oasis_write_grid(c_to_f_string(name), int(nx), int(ny), lon, lat)
  end subroutine cryo_oasis_f_write_grid

  ! clon, clat: degrees at the nc corners of each cell, (nx, ny, nc) with x fastest, that is a
  ! C array [nc][ny][nx].
  subroutine cryo_oasis_f_write_corner(name, nx, ny, nc, clon, clat) &
    bind(C, name="cryo_oasis_f_write_corner")
    character(kind=c_char), intent(in) :: name(*)
    integer(c_int), value, intent(in) :: nx, ny, nc
    real(c_double), intent(in) :: clon(nx, ny, nc), clat(nx, ny, nc)

    call oasis_write_corner(c_to_f_string(name), int(nx), int(ny), int(nc), clon, clat)
  end subroutine cryo_oasis_f_write_corner

  ! mask: OASIS convention, 0 for a valid cell, 1 for a masked one.
  subroutine cryo_oasis_f_write_mask(name, nx, ny, mask) bind(C, name="cryo_oasis_f_write_mask")
    character(kind=c_char), intent(in) :: name(*)
    integer(c_int), value, intent(in) :: nx, ny
    integer(c_int), intent(in) :: mask(nx, ny)
    integer, allocatable :: m(:, :)

    allocate (m(nx, ny))
    m = mask
    call oasis_write_mask(c_to_f_string(name), int(nx), int(ny), m)
  end subroutine cryo_oasis_f_write_mask

  ! area: m2 per cell.
  subroutine cryo_oasis_f_write_area(name, nx, ny, area) bind(C, name="cryo_oasis_f_write_area")
    character(kind=c_char), intent(in) :: name(*)
    integer(c_int), value, intent(in) :: nx, ny
    real(c_double), intent(in) :: area(nx, ny)

    call oasis_write_area(c_to_f_string(name), int(nx), int(ny), area)
  end subroutine cryo_oasis_f_write_area

  subroutine cryo_oasis_f_terminate_grids_writing() &
    bind(C, name="cryo_oasis_f_terminate_grids_writing")
    call oasis_terminate_grids_writing()
  end subroutine cryo_oasis_f_terminate_grids_writing

end module cryo_oasis_bridge
