#!/bin/bash
# The main job: set up, build, then a 4-rank mixed-vendor all-reduce benchmark (nccl-tests
# style) with the flat ring, the tuner's choice and Open MPI's MPI_Allreduce side by side.
# Without a GPU the ranks are emulated: two "nvidia" and two "amd" ranks on host devices, with
# cross-vendor links 8x slower than links inside a vendor's island.  Extra arguments go to
# hetccl-perf, e.g. scripts/run-main.sh -e 256M.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${HETCCL_BUILD_DIR:-$root/build}
# Open MPI refuses to run as root unless told, and 4 ranks may exceed the cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if ! { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; } &&
   ! { command -v rocm-smi >/dev/null && rocm-smi --showid >/dev/null 2>&1; }; then
  echo "run-main: no GPU found: emulating 2 NVIDIA + 2 AMD ranks on host devices;" \
       "the MPI columns run on the machine's real (unpaced) links, a reference rather than a like-for-like baseline"
  export HETCCL_EMULATE_VENDORS=${HETCCL_EMULATE_VENDORS:-nvidia:2,amd:2}
  export HETCCL_EMULATE_LINKS=${HETCCL_EMULATE_LINKS:-intra:4GB/s:5us,inter:0.5GB/s:20us}
fi
exec mpirun -np 4 --oversubscribe "$build/apps/perf/hetccl-perf" allreduce \
  -b 8 -e 64M -f 4 -n 10 -w 2 --algo ring,auto --baseline mpi "$@"
