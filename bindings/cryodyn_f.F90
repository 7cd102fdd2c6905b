! Fortran 2003 binding of the cryodyn C API (component/cryodyn.h;
! docs/design.md, Lifecycle). Thin wrappers only: every function returns the C status (CRYO_OK
! or a CRYO_ERR_* class, the same numbers as the C enum), and after an error
! cryo_last_error(c) gives the component's message.
!
!   use cryodyn
!   type(cryo_component) :: c
!   status = cryo_init(c, 'seaice.nml', MPI_COMM_WORLD)
!   do while (.not. cryo_is_done(c))
!     status = cryo_set_field(c, 'uwind', uwind)  ! forcing = 'host'
!     status = cryo_run(c)
!     status = cryo_get_field(c, 'uice', uice)
!   end do
!   status = cryo_finalize(c)
!
! Field arrays hold this rank's own cells (or nodes) in the C row-major order
! [ny][nx], which is a Fortran array (nx, ny): pass either a rank-1 array of
! nx*ny values or a rank-2 array (nx, ny); cryo_get_block gives nx and ny.
! With mpi_f08, pass comm%mpi_val as the communicator.
module cryodyn
  use, intrinsic :: iso_c_binding, only: c_ptr, c_null_ptr, c_associated, c_f_pointer, &
       c_char, c_null_char, c_int, c_long, c_long_long, c_double, c_size_t
  implicit none
  private

  ! Status codes, in the order of enum cryo_status in cryodyn.h.
  enum, bind(c)
     enumerator :: CRYO_OK = 0
     enumerator :: CRYO_ERR_ARG, CRYO_ERR_MEMORY, CRYO_ERR_FILE, CRYO_ERR_SYNTAX
     enumerator :: CRYO_ERR_UNKNOWN, CRYO_ERR_TYPE, CRYO_ERR_DUPLICATE, CRYO_ERR_MISSING
     enumerator :: CRYO_ERR_RANGE, CRYO_ERR_NETCDF, CRYO_ERR_FORMAT, CRYO_ERR_CHECKSUM
     enumerator :: CRYO_ERR_DATA, CRYO_ERR_MPI, CRYO_ERR_DEVICE, CRYO_ERR_SOLVER
     enumerator :: CRYO_ERR_COUPLING, CRYO_ERR_UNSUPPORTED, CRYO_ERR_STATE
     enumerator :: CRYO_STATUS_COUNT
  end enum
  public :: CRYO_OK, CRYO_ERR_ARG, CRYO_ERR_MEMORY, CRYO_ERR_FILE, CRYO_ERR_SYNTAX, &
       CRYO_ERR_UNKNOWN, CRYO_ERR_TYPE, CRYO_ERR_DUPLICATE, CRYO_ERR_MISSING, &
       CRYO_ERR_RANGE, CRYO_ERR_NETCDF, CRYO_ERR_FORMAT, CRYO_ERR_CHECKSUM, &
       CRYO_ERR_DATA, CRYO_ERR_MPI, CRYO_ERR_DEVICE, CRYO_ERR_SOLVER, &
       CRYO_ERR_COUPLING, CRYO_ERR_UNSUPPORTED, CRYO_ERR_STATE, CRYO_STATUS_COUNT

  ! Handle of one component instance (the C cryo_component *); null before
  ! cryo_init and after cryo_finalize.
  type, public :: cryo_component
     type(c_ptr) :: ptr = c_null_ptr
  end type cryo_component

  public :: cryo_init, cryo_run, cryo_finalize, cryo_set_field, cryo_get_field
  public :: cryo_last_error, cryo_status_name, cryo_is_done, cryo_get_time
  public :: cryo_get_run_length, cryo_is_root, cryo_summary, cryo_get_block, cryo_version

  ! The same name for rank-1 arrays and (nx, ny) arrays.
  interface cryo_set_field
     module procedure set_field_1d, set_field_2d
  end interface cryo_set_field
  interface cryo_get_field
     module procedure get_field_1d, get_field_2d
  end interface cryo_get_field

  interface
     integer(c_int) function c_init(c, path, comm) bind(c, name='cryo_init_f')
       import :: c_ptr, c_char, c_int
       type(c_ptr), intent(inout) :: c
       character(kind=c_char), intent(in) :: path(*)
       integer(c_int), value :: comm
     end function c_init
     integer(c_int) function c_run(c) bind(c, name='cryo_run')
       import :: c_ptr, c_int
       type(c_ptr), value :: c
     end function c_run
     integer(c_int) function c_finalize(c) bind(c, name='cryo_finalize')
       import :: c_ptr, c_int
       type(c_ptr), intent(inout) :: c
     end function c_finalize
     type(c_ptr) function c_last_error(c) bind(c, name='cryo_last_error')
       import :: c_ptr
       type(c_ptr), value :: c
     end function c_last_error
     type(c_ptr) function c_status_name(status) bind(c, name='cryo_status_name')
       import :: c_ptr, c_int
       integer(c_int), value :: status
     end function c_status_name
     type(c_ptr) function c_version() bind(c, name='cryo_version')
       import :: c_ptr
     end function c_version
     integer(c_int) function c_is_done(c) bind(c, name='cryo_is_done')
       import :: c_ptr, c_int
       type(c_ptr), value :: c
     end function c_is_done
     integer(c_int) function c_is_root(c) bind(c, name='cryo_is_root')
       import :: c_ptr, c_int
       type(c_ptr), value :: c
     end function c_is_root
     integer(c_long_long) function c_get_time(c) bind(c, name='cryo_get_time')
       import :: c_ptr, c_long_long
       type(c_ptr), value :: c
     end function c_get_time
     integer(c_long_long) function c_get_run_length(c) bind(c, name='cryo_get_run_length')
       import :: c_ptr, c_long_long
       type(c_ptr), value :: c
     end function c_get_run_length
     integer(c_int) function c_summary(c, buf, len) bind(c, name='cryo_summary')
       import :: c_ptr, c_char, c_int
       type(c_ptr), value :: c
       character(kind=c_char), intent(out) :: buf(*)
       integer(c_int), value :: len
     end function c_summary
     integer(c_int) function c_get_block(c, i0, j0, nx, ny, nx_global, ny_global) &
          bind(c, name='cryo_get_block_f')
       import :: c_ptr, c_int
       type(c_ptr), value :: c
       integer(c_int), intent(out) :: i0, j0, nx, ny, nx_global, ny_global
     end function c_get_block
     integer(c_int) function c_set_field(c, name, values, n) bind(c, name='cryo_set_field')
       import :: c_ptr, c_char, c_double, c_long, c_int
       type(c_ptr), value :: c
       character(kind=c_char), intent(in) :: name(*)
       real(c_double), intent(in) :: values(*)
       integer(c_long), value :: n
     end function c_set_field
     integer(c_int) function c_get_field(c, name, values, n) bind(c, name='cryo_get_field')
       import :: c_ptr, c_char, c_double, c_long, c_int
       type(c_ptr), value :: c
       character(kind=c_char), intent(in) :: name(*)
       real(c_double), intent(inout) :: values(*)
       integer(c_long), value :: n
     end function c_get_field
     integer(c_size_t) function c_strlen(s) bind(c, name='strlen')
       import :: c_ptr, c_size_t
       type(c_ptr), value :: s
     end function c_strlen
  end interface

contains

  ! A NUL-terminated copy of a Fortran string (trailing blanks dropped).
  pure function c_string(s) result(cs)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len_trim(s) + 1) :: cs
    cs = trim(s) // c_null_char
  end function c_string

  ! A Fortran copy of a NUL-terminated C string ("" for a null pointer).
  function f_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
       s = ''
       return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
       s(i:i) = chars(i)
    end do
  end function f_string

  ! Read the namelist and set up the component on the Fortran communicator
  ! comm (e.g. MPI_COMM_WORLD). On failure c may still be set: call
  ! cryo_last_error(c), then cryo_finalize(c), in every case.
  integer function cryo_init(c, namelist, comm) result(status)
    type(cryo_component), intent(inout) :: c
    character(len=*), intent(in) :: namelist
    integer, intent(in) :: comm
    status = int(c_init(c%ptr, c_string(namelist), int(comm, c_int)))
  end function cryo_init

  ! Advance one coupling interval.
  integer function cryo_run(c) result(status)
    type(cryo_component), intent(in) :: c
    status = int(c_run(c%ptr))
  end function cryo_run

  ! Write the final restart if asked and release the component; c becomes null.
  integer function cryo_finalize(c) result(status)
    type(cryo_component), intent(inout) :: c
    status = int(c_finalize(c%ptr))
  end function cryo_finalize

  ! Message of the last error on c, or of the last failed cryo_init when c is
  ! absent or null; "" when there was none.
  function cryo_last_error(c) result(msg)
    type(cryo_component), intent(in), optional :: c
    character(len=:), allocatable :: msg
    if (present(c)) then
       msg = f_string(c_last_error(c%ptr))
    else
       msg = f_string(c_last_error(c_null_ptr))
    end if
  end function cryo_last_error

  ! Name of a status code, e.g. "CRYO_ERR_RANGE".
  function cryo_status_name(status) result(name)
    integer, intent(in) :: status
    character(len=:), allocatable :: name
    name = f_string(c_status_name(int(status, c_int)))
  end function cryo_status_name

  ! Version string of the library.
  function cryo_version() result(version)
    character(len=:), allocatable :: version
    version = f_string(c_version())
  end function cryo_version

  ! True once the clock has reached the end of the run.
  logical function cryo_is_done(c)
    type(cryo_component), intent(in) :: c
    cryo_is_done = c_is_done(c%ptr) /= 0
  end function cryo_is_done

  ! True on the component's rank 0.
  logical function cryo_is_root(c)
    type(cryo_component), intent(in) :: c
    cryo_is_root = c_is_root(c%ptr) /= 0
  end function cryo_is_root

  ! Simulated time since the start, s.
  integer(c_long_long) function cryo_get_time(c)
    type(cryo_component), intent(in) :: c
    cryo_get_time = c_get_time(c%ptr)
  end function cryo_get_time

  ! Length of the run, s.
  integer(c_long_long) function cryo_get_run_length(c)
    type(cryo_component), intent(in) :: c
    cryo_get_run_length = c_get_run_length(c%ptr)
  end function cryo_get_run_length

  ! One-line summary of the state into line (collective over the ranks).
  integer function cryo_summary(c, line) result(status)
    type(cryo_component), intent(in) :: c
    character(len=:), allocatable, intent(out) :: line
    character(kind=c_char) :: buf(512)
    integer :: i, n
    status = int(c_summary(c%ptr, buf, int(size(buf), c_int)))
    n = 0
    do i = 1, size(buf)
       if (buf(i) == c_null_char) exit
       n = i
    end do
    allocate(character(len=n) :: line)
    do i = 1, n
       line(i:i) = buf(i)
    end do
  end function cryo_summary

  ! This rank's owned cells: global index of the first (1-based here), counts,
  ! and the global grid size. Cell fields are (nx, ny), node fields
  ! (nx + 1, ny + 1).
  integer function cryo_get_block(c, i0, j0, nx, ny, nx_global, ny_global) result(status)
    type(cryo_component), intent(in) :: c
    integer, intent(out) :: i0, j0, nx, ny, nx_global, ny_global
    integer(c_int) :: ci0, cj0, cnx, cny, cnxg, cnyg
    status = int(c_get_block(c%ptr, ci0, cj0, cnx, cny, cnxg, cnyg))
    i0 = int(ci0) + 1
    j0 = int(cj0) + 1
    nx = int(cnx)
    ny = int(cny)
    nx_global = int(cnxg)
    ny_global = int(cnyg)
  end function cryo_get_block

  integer function set_field_1d(c, name, values) result(status)
    type(cryo_component), intent(in) :: c
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: values(:)
    status = int(c_set_field(c%ptr, c_string(name), values, int(size(values), c_long)))
  end function set_field_1d

  integer function set_field_2d(c, name, values) result(status)
    type(cryo_component), intent(in) :: c
    character(len=*), intent(in) :: name
    real(c_double), intent(in) :: values(:, :)
    status = int(c_set_field(c%ptr, c_string(name), values, int(size(values), c_long)))
  end function set_field_2d

  integer function get_field_1d(c, name, values) result(status)
    type(cryo_component), intent(in) :: c
    character(len=*), intent(in) :: name
    real(c_double), intent(inout) :: values(:)
    status = int(c_get_field(c%ptr, c_string(name), values, int(size(values), c_long)))
  end function get_field_1d

  integer function get_field_2d(c, name, values) result(status)
    type(cryo_component), intent(in) :: c
    character(len=*), intent(in) :: name
    real(c_double), intent(inout) :: values(:, :)
    status = int(c_get_field(c%ptr, c_string(name), values, int(size(values), c_long)))
  end function get_field_2d

end module cryodyn
