! A Fortran host model built against the installed cryodyn with
!   mpif90 install_host.F90 $(pkg-config --cflags --libs cryodyn)
! and nothing else (tests/install.test): `use cryodyn` finds cryodyn.mod
! through the Cflags. The same run as the C host (tests/install_host.c): the
! sea-ice case of the namelist given as argument 1 in host mode on one rank,
! a uniform wind of (10, 0) m/s over an ocean at rest set before every
! coupling interval, then it prints
!   install_host_f: cryodyn VERSION, t = T s, max uice = U m/s
! with U to 17 significant digits, which must equal the C host's.
! Exit status 0 on success, 1 on any cryodyn error (message on stderr).
program install_host_f
  use mpi
  use cryodyn
  implicit none
  type(cryo_component) :: c
  character(len=4096) :: path
  real(8), allocatable :: wind(:, :), zero(:, :), uice(:, :)
  integer :: ierr, i0, j0, nx, ny, nx_global, ny_global

  call MPI_Init(ierr)
  if (command_argument_count() /= 1) then
     write (0, '(a)') 'usage: install_host_f NAMELIST'
     call MPI_Finalize(ierr)
     stop 2
  end if
  call get_command_argument(1, path)
  call check(cryo_init(c, trim(path), MPI_COMM_WORLD), 'cryo_init')
  call check(cryo_get_block(c, i0, j0, nx, ny, nx_global, ny_global), 'cryo_get_block')
  allocate(wind(nx, ny), zero(nx, ny), uice(nx, ny))
  wind = 10.0d0  ! m/s
  zero = 0.0d0
  do while (.not. cryo_is_done(c))
     call check(cryo_set_field(c, 'uwind', wind), 'cryo_set_field')
     call check(cryo_set_field(c, 'vwind', zero), 'cryo_set_field')
     call check(cryo_set_field(c, 'uocean', zero), 'cryo_set_field')
     call check(cryo_set_field(c, 'vocean', zero), 'cryo_set_field')
     call check(cryo_run(c), 'cryo_run')
  end do
  call check(cryo_get_field(c, 'uice', uice), 'cryo_get_field')
  write (*, '(3a, i0, a, es24.16e3, a)') 'install_host_f: cryodyn ', cryo_version(), &
       ', t = ', cryo_get_time(c), ' s, max uice = ', maxval(uice), ' m/s'
  call check(cryo_finalize(c), 'cryo_finalize')
  call MPI_Finalize(ierr)

contains

  ! Stop with the component's message when a call failed.
  subroutine check(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    integer :: ignored
    if (status == CRYO_OK) return
    write (0, '(5a)') 'install_host_f: ', what, ': ', cryo_last_error(c), &
         ' [' // cryo_status_name(status) // ']'
    ignored = cryo_finalize(c)
    call MPI_Finalize(ierr)
    stop 1
  end subroutine check

end program install_host_f
