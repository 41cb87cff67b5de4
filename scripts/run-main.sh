#!/bin/bash
# The main job: set up, build, then a 4-rank all-reduce benchmark (nccl-tests style, with
# Open MPI's MPI_Allreduce measured side by side) on host devices.  Extra arguments go to
# hetccl-perf, e.g. scripts/run-main.sh -e 256M.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${HETCCL_BUILD_DIR:-$root/build}
# Open MPI refuses to run as root unless told, and 4 ranks may exceed the cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun -np 4 --oversubscribe "$build/apps/perf/hetccl-perf" allreduce \
  -b 8 -e 64M -f 4 --baseline mpi "$@"
