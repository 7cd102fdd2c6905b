! The Fortran binding (bindings/cryodyn_f.F90; docs/design.md, Lifecycle), run by
! tests/fortran_host.test on 1 and 2 ranks with a forcing = 'host' sea-ice
! namelist (argument 1). Every check is exact (integers, strings, bits):
!  - the 21 status constants equal the C enum: cryo_status_name(CRYO_X) is
!    "CRYO_X" for each, and CRYO_STATUS_COUNT is one past CRYO_ERR_STATE;
!  - cryo_init on a missing namelist: CRYO_ERR_FILE, the message names the
!    path, cryo_finalize nulls the handle;
!  - cryo_set_field with a misspelled name ('uwnd'): CRYO_ERR_UNKNOWN and the
!    message names 'uwnd'; with nx*ny - 1 values: CRYO_ERR_ARG naming both
!    lengths; cryo_get_field of an unknown name: CRYO_ERR_UNKNOWN;
!  - a field set from a (nx, ny) array comes back bit for bit from
!    cryo_get_field into a rank-1 array and into a non-contiguous section,
!    with Fortran element (i, j) = C [j][i] (values encode the global index);
!  - one cryo_run advances cryo_get_time by the coupling interval (3600 s)
!    and cryo_is_done stays false until the run length (7200 s).
! Exit status 0 when every check passes, 1 otherwise.
program test_fortran_binding
  use mpi
  use cryodyn
  use, intrinsic :: iso_c_binding, only: c_associated, c_long_long
  use, intrinsic :: iso_fortran_env, only: int64
  implicit none
  character(len=*), parameter :: names(0:20) = [character(len=20) :: &
       'CRYO_OK', 'CRYO_ERR_ARG', 'CRYO_ERR_MEMORY', 'CRYO_ERR_FILE', 'CRYO_ERR_SYNTAX', &
       'CRYO_ERR_UNKNOWN', 'CRYO_ERR_TYPE', 'CRYO_ERR_DUPLICATE', 'CRYO_ERR_MISSING', &
       'CRYO_ERR_RANGE', 'CRYO_ERR_NETCDF', 'CRYO_ERR_FORMAT', 'CRYO_ERR_CHECKSUM', &
       'CRYO_ERR_DATA', 'CRYO_ERR_MPI', 'CRYO_ERR_DEVICE', 'CRYO_ERR_SOLVER', &
       'CRYO_ERR_COUPLING', 'CRYO_ERR_UNSUPPORTED', 'CRYO_ERR_STATE', 'CRYO_STATUS_COUNT']
  integer, parameter :: codes(0:20) = [CRYO_OK, CRYO_ERR_ARG, CRYO_ERR_MEMORY, CRYO_ERR_FILE, &
       CRYO_ERR_SYNTAX, CRYO_ERR_UNKNOWN, CRYO_ERR_TYPE, CRYO_ERR_DUPLICATE, CRYO_ERR_MISSING, &
       CRYO_ERR_RANGE, CRYO_ERR_NETCDF, CRYO_ERR_FORMAT, CRYO_ERR_CHECKSUM, CRYO_ERR_DATA, &
       CRYO_ERR_MPI, CRYO_ERR_DEVICE, CRYO_ERR_SOLVER, CRYO_ERR_COUPLING, CRYO_ERR_UNSUPPORTED, &
       CRYO_ERR_STATE, CRYO_STATUS_COUNT]
  type(cryo_component) :: c
  character(len=4096) :: path
  character(len=:), allocatable :: msg
  real(8), allocatable :: a2(:, :), back(:), wide(:, :), ones(:, :)
  integer :: ierr, rank, status, k, i, j, i0, j0, nx, ny, nxg, nyg, failed, passed
  integer(c_long_long) :: t0, t1
  logical :: done

  failed = 0
  passed = 0
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call get_command_argument(1, path)

  ! Status codes: the C names for the Fortran values, and consecutive values.
  do k = 0, 19
     call check(cryo_status_name(codes(k)) == trim(names(k)) .and. codes(k) == k, &
          'status constant ' // trim(names(k)) // ' = C value')
  end do
  call check(CRYO_STATUS_COUNT == CRYO_ERR_STATE + 1, 'CRYO_STATUS_COUNT follows CRYO_ERR_STATE')

  ! A failed cryo_init and its message.
  status = cryo_init(c, 'no_such_dir/missing.nml', MPI_COMM_WORLD)
  msg = cryo_last_error(c)
  if (.not. c_associated(c%ptr)) msg = cryo_last_error()
  call check(status == CRYO_ERR_FILE, 'cryo_init of a missing namelist: CRYO_ERR_FILE, got ' // &
       cryo_status_name(status))
  call check(index(msg, 'no_such_dir/missing.nml') > 0, 'its message names the path: ' // msg)
  status = cryo_finalize(c)
  call check(.not. c_associated(c%ptr), 'cryo_finalize after a failed init nulls the handle')

  status = cryo_init(c, trim(path), MPI_COMM_WORLD)
  call check(status == CRYO_OK, 'cryo_init(' // trim(path) // '): ' // cryo_last_error(c))
  if (status /= CRYO_OK) call finish()
  status = cryo_get_block(c, i0, j0, nx, ny, nxg, nyg)
  call check(status == CRYO_OK .and. nx > 0 .and. ny > 0 .and. nxg == 32 .and. nyg == 32, &
       'cryo_get_block: a block of the 32 x 32 grid')
  allocate(a2(nx, ny), back(nx * ny), wide(2 * nx, ny), ones(nx, ny))
  ones = 1.0d0

  ! An error a host can make: a misspelled forcing name.
  status = cryo_set_field(c, 'uwnd', ones)
  msg = cryo_last_error(c)
  call check(status == CRYO_ERR_UNKNOWN, 'cryo_set_field(''uwnd''): CRYO_ERR_UNKNOWN, got ' // &
       cryo_status_name(status))
  call check(index(msg, '''uwnd''') > 0, 'the message names the field: ' // msg)
  status = cryo_set_field(c, 'uwind', back(1:nx * ny - 1))
  msg = cryo_last_error(c)
  call check(status == CRYO_ERR_ARG .and. index(msg, itoa(nx * ny - 1)) > 0 .and. &
       index(msg, itoa(nx * ny)) > 0, 'cryo_set_field with nx*ny - 1 values: ' // msg)
  status = cryo_get_field(c, 'vcie', back)
  msg = cryo_last_error(c)
  call check(status == CRYO_ERR_UNKNOWN .and. index(msg, '''vcie''') > 0, &
       'cryo_get_field(''vcie''): ' // msg)

  ! Layout and bits through the binding: (i, j) <-> C [j][i], global index encoded.
  do j = 1, ny
     do i = 1, nx
        a2(i, j) = (i0 + i - 1) + 1000.0d0 * (j0 + j - 1) + 1.0d0 / 3.0d0
     end do
  end do
  call check(cryo_set_field(c, 'uocean', a2) == CRYO_OK, 'cryo_set_field(''uocean'') from (nx, ny)')
  back = -1.0d0
  call check(cryo_get_field(c, 'uocean', back) == CRYO_OK, 'cryo_get_field(''uocean'') into 1-D')
  call check(same_bits(back, reshape(a2, [nx * ny])), 'uocean comes back bit for bit, row-major order')
  wide = -1.0d0
  status = cryo_get_field(c, 'uocean', wide(1:2 * nx:2, :))
  call check(status == CRYO_OK .and. same_bits(reshape(wide(1:2 * nx:2, :), [nx * ny]), &
       reshape(a2, [nx * ny])) .and. same_bits(reshape(wide(2:2 * nx:2, :), [nx * ny]), &
       [(-1.0d0, k = 1, nx * ny)]), 'cryo_get_field into a strided section fills only that section')

  ! One coupling interval.
  call check(cryo_set_field(c, 'uwind', 10.0d0 * ones) == CRYO_OK, 'set uwind')
  call check(cryo_set_field(c, 'vwind', 5.0d0 * ones) == CRYO_OK, 'set vwind')
  call check(cryo_set_field(c, 'uocean', 0.1d0 * ones) == CRYO_OK, 'set uocean')
  call check(cryo_set_field(c, 'vocean', 0.0d0 * ones) == CRYO_OK, 'set vocean')
  t0 = cryo_get_time(c)
  t1 = cryo_get_run_length(c)
  done = cryo_is_done(c)
  call check(t0 == 0 .and. t1 == 7200 .and. .not. done, 'before cryo_run: time 0 of 7200 s, not done')
  status = cryo_run(c)
  msg = cryo_last_error(c)
  if (status /= CRYO_OK) msg = 'cryo_run: ' // msg
  if (status == CRYO_OK) msg = 'cryo_run'
  call check(status == CRYO_OK, msg)
  t0 = cryo_get_time(c)
  done = cryo_is_done(c)
  call check(t0 == 3600 .and. .not. done, 'cryo_run advanced the clock by 3600 s')
  deallocate(back)
  allocate(back((nx + 1) * (ny + 1)))
  call check(cryo_get_field(c, 'u', back) == CRYO_OK, 'cryo_get_field(''u'') on (nx+1)(ny+1) nodes')
  status = cryo_get_field(c, 'uice', a2)
  call check(status == CRYO_OK .and. maxval(abs(a2)) > 0.0d0, &
       'cryo_get_field(''uice''): the ice moves')
  status = cryo_finalize(c)
  call check(status == CRYO_OK .and. .not. c_associated(c%ptr), 'cryo_finalize nulls the handle')
  call finish()

contains

  ! Exact equality of two arrays of doubles, bit by bit.
  logical function same_bits(x, y)
    real(8), intent(in) :: x(:), y(:)
    same_bits = size(x) == size(y)
    if (same_bits) same_bits = all(transfer(x, 0_int64, size(x)) == transfer(y, 0_int64, size(y)))
  end function same_bits

  function itoa(n) result(s)
    integer, intent(in) :: n
    character(len=:), allocatable :: s
    character(len=20) :: buf
    write (buf, '(i0)') n
    s = trim(buf)
  end function itoa

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) then
       passed = passed + 1
       if (rank == 0) write (*, '(2a)') 'ok: ', what
    else
       failed = failed + 1
       write (*, '(a, i0, 2a)') 'FAIL (rank ', rank, '): ', what
    end if
  end subroutine check

  subroutine finish()
    integer :: total
    call MPI_Allreduce(failed, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
    if (rank == 0) write (*, '(i0, a, i0, a)') passed, ' passed, ', total, ' failed'
    call MPI_Finalize(ierr)
    if (total /= 0) stop 1
    stop
  end subroutine finish

end program test_fortran_binding
