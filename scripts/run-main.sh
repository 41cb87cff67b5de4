#!/bin/bash
# The main job: set up, build, then a 4-rank mixed-vendor all-reduce benchmark (nccl-tests
# style) with the flat ring, the tuner's choice (with its predicted time) and Open MPI's
# MPI_Allreduce side by side.  Without a GPU the ranks are emulated: two "nvidia" and two "amd"
# ranks on host devices.  As root, where network namespaces work, they run on a test cluster
# (scripts/test-cluster.sh): four nodes, each vendor's two behind their own bridge with 2 Gbit/s
# uplinks, the two bridges joined by a 1 Gbit/s trunk, so hetccl, MPI_Allreduce (Open MPI's
# tuned and han) and Gloo cross the same kernel-shaped wires (scripts/cluster-compare.sh: the
# ring, hier, torus and the tuner's pick, each beside the cost model's prediction from the
# link probe, then the tables side by side).  Elsewhere hetccl paces its own links on one host
# and the MPI column is only a reference.  Extra arguments go to hetccl-perf, e.g.
# scripts/run-main.sh -e 256M.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"
"$root/scripts/build.sh"
build=${HETCCL_BUILD_DIR:-$root/build}
perf=("$build/apps/perf/hetccl-perf" allreduce -b 8 -e 64M -f 4 -n 10 -w 2 --algo ring,auto --baseline mpi)
# Open MPI refuses to run as root unless told, and 4 ranks may exceed the cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
if { command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; } ||
   { command -v rocm-smi >/dev/null && rocm-smi --showid >/dev/null 2>&1; }; then
  exec mpirun -np 4 --oversubscribe "${perf[@]}" "$@"
fi
# As root where namespaces work: the 4-node cluster, with the link probe so that the model
# column prices the cluster's own links; hetccl, Open MPI (tuned, then han) and Gloo (through
# torch) on the same wires, then the tables side by side (scripts/cluster-compare.sh).
echo "run-main: no GPU found: 2 NVIDIA + 2 AMD emulated ranks, on a 4-node namespace cluster where" \
     "this machine allows (2 Gbit/s uplinks, 1 Gbit/s between the vendors' fabrics); hetccl and the" \
     "MPI and Gloo columns run on the same wires"
set +e
"$root/scripts/cluster-compare.sh" --probe -e 64M --out "$build/run-main" -- "$@" 2>"$build/run-main-cluster.log"
status=$?
set -e
[ $status -ne 0 ] || exit 0
[ $status -eq 77 ] || { cat "$build/run-main-cluster.log" >&2; exit $status; }
echo "run-main: no namespace cluster here ($(tail -1 "$build/run-main-cluster.log")):" \
     "emulating 2 NVIDIA + 2 AMD ranks on one host with cross-vendor links paced 8x slower" \
     "by hetccl itself; the MPI columns run on the host's unpaced shared memory, a reference" \
     "rather than a like-for-like baseline"
export HETCCL_EMULATE_VENDORS=${HETCCL_EMULATE_VENDORS:-nvidia:2,amd:2}
export HETCCL_EMULATE_LINKS=${HETCCL_EMULATE_LINKS:-intra:4GB/s:5us,inter:0.5GB/s:20us}
exec mpirun -np 4 --oversubscribe "${perf[@]}" --model "$@"
