#!/bin/sh
# The Arctic case at 2 km (docs/arctic.md): 3750 x 3750 cells, the grid and
# forcing files (1.1 GB each, under 2 minutes to write), namelists/arctic_2km.nml
# (1 day, dt = 60 s, 200 mEVP iterations; meant for a GPU build) and maps of
# the last record drawn in blocks of 5 x 5 cells, in arctic_2km/.
#
#   sh examples/run_arctic_2km.sh [--steps LIST] [NP]   (from the build directory)
#
# The options, environment and exit status of examples/run_arctic.sh.
exec sh "$(cd "$(dirname "$0")" && pwd)/run_arctic.sh" --resolution 2 "$@"
