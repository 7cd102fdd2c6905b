! A host model in Fortran that runs cryodyn's sea ice in host mode
! (docs/design.md, Lifecycle): the namelist says forcing = 'host', so before each coupling
! interval this program hands the component its cell-centred forcing with
! cryo_set_field, runs one interval with cryo_run, and reads back what an
! ocean would receive with cryo_get_field. The component writes its own
! output file (&cryo_run output_file).
!
!   mpirun -np N cryodyn-host-seaice namelists/host_seaice.nml
!
! Forcing: uniform wind (10, 5) m/s and ocean current (0.1, 0) m/s, constant
! in time, the same fields a forcing = 'netcdf' run gets from a file holding
! these values (tests/fortran_host.test compares the two bit for bit).
! Exit status 0 on success, 1 on any cryodyn error (message on stderr),
! 2 on a wrong command line.
program host_seaice
  use mpi
  use cryodyn
  implicit none
  real(8), parameter :: uwind = 10.0d0, vwind = 5.0d0   ! m/s
  real(8), parameter :: uocean = 0.1d0, vocean = 0.0d0  ! m/s
  type(cryo_component) :: c
  character(len=4096) :: path
  character(len=:), allocatable :: line
  real(8), allocatable :: forcing(:, :), uice(:, :), vice(:, :), aice(:, :)
  real(8) :: local(2), global(2)
  integer :: status, ierr, rank, nranks, i0, j0, nx, ny, nx_global, ny_global

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  if (command_argument_count() /= 1) then
     if (rank == 0) write (0, '(a)') 'usage: [mpirun -np N] cryodyn-host-seaice NAMELIST'
     call MPI_Finalize(ierr)
     stop 2
  end if
  call get_command_argument(1, path)

  ! cryo_init agrees on its outcome over the ranks: rank 0 reports.
  status = cryo_init(c, trim(path), MPI_COMM_WORLD)
  if (status /= CRYO_OK) then
     if (rank == 0) write (0, '(4a)') 'cryodyn-host-seaice: error: ', cryo_last_error(c), &
          ' [', cryo_status_name(status) // ']'
     status = cryo_finalize(c)
     call MPI_Finalize(ierr)
     stop 1
  end if
  status = cryo_get_block(c, i0, j0, nx, ny, nx_global, ny_global)
  call check(status, 'cryo_get_block')
  if (cryo_is_root(c)) write (*, '(a, i0, a, i0, a, i0, a, a)') 'cryodyn-host-seaice: ', &
       nx_global, ' x ', ny_global, ' cells on ', nranks, ' rank(s), cryodyn ', cryo_version()
  allocate(forcing(nx, ny), uice(nx, ny), vice(nx, ny), aice(nx, ny))

  do while (.not. cryo_is_done(c))
     forcing = uwind
     call check(cryo_set_field(c, 'uwind', forcing), 'cryo_set_field')
     forcing = vwind
     call check(cryo_set_field(c, 'vwind', forcing), 'cryo_set_field')
     forcing = uocean
     call check(cryo_set_field(c, 'uocean', forcing), 'cryo_set_field')
     forcing = vocean
     call check(cryo_set_field(c, 'vocean', forcing), 'cryo_set_field')
     call check(cryo_run(c), 'cryo_run')
     ! What an ocean model would take: ice velocity and concentration on cells.
     call check(cryo_get_field(c, 'uice', uice), 'cryo_get_field')
     call check(cryo_get_field(c, 'vice', vice), 'cryo_get_field')
     call check(cryo_get_field(c, 'aice', aice), 'cryo_get_field')
     local = [maxval(sqrt(uice**2 + vice**2)), sum(aice)]
     call MPI_Reduce(local(1), global(1), 1, MPI_DOUBLE_PRECISION, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
     call MPI_Reduce(local(2), global(2), 1, MPI_DOUBLE_PRECISION, MPI_SUM, 0, MPI_COMM_WORLD, ierr)
     call check(cryo_summary(c, line), 'cryo_summary')
     if (cryo_is_root(c)) write (*, '(a, f10.3, a, f8.5, a, f10.6, 2a)') &
          'cryodyn-host-seaice: t = ', cryo_get_time(c) / 3600.0d0, ' h  max cell ice speed ', global(1), &
          ' m/s  mean aice ', global(2) / (dble(nx_global) * ny_global), '  ', line
  end do

  status = cryo_finalize(c)
  if (status /= CRYO_OK) then
     if (rank == 0) write (0, '(4a)') 'cryodyn-host-seaice: error: ', cryo_last_error(), &
          ' [', cryo_status_name(status) // ']'
     call MPI_Finalize(ierr)
     stop 1
  end if
  if (rank == 0) write (*, '(a)') 'cryodyn-host-seaice: run complete'
  call MPI_Finalize(ierr)

contains

  ! After a failed call the other ranks may be waiting in a collective
  ! operation: report from the failing rank and stop every rank.
  subroutine check(status, what)
    integer, intent(in) :: status
    character(len=*), intent(in) :: what
    integer :: ierr2, ignored
    if (status == CRYO_OK) return
    write (0, '(a, i0, 6a)') 'cryodyn-host-seaice: error on rank ', rank, ': ', what, ': ', &
         cryo_last_error(c), ' [', cryo_status_name(status) // ']'
    flush (0)
    if (nranks > 1) call MPI_Abort(MPI_COMM_WORLD, 1, ierr2)
    ignored = cryo_finalize(c)
    call MPI_Finalize(ierr2)
    stop 1
  end subroutine check

end program host_seaice
