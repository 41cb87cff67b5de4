#!/bin/bash
# hetccl against Open MPI at every size, as issue 27's "no size slower than MPI" asks: for each
# rank count and collective, RUNS runs of hetccl-perf with --baseline mpi (MPI's collective on
# the same buffers, in the same run), alternated between builds when several are given, then a
# table of medians per size (scripts/size_sweep_table.py): hetccl's time out of place and in
# place, MPI's, and the median of the runs' ratios (MPI time / hetccl time, >= 1: hetccl faster;
# for broadcast the in-place column, as MPI_Bcast has one buffer).
#
#   size-sweep.sh [--np "2 4"] [--runs 5] [--collectives "allreduce allgather reducescatter broadcast"]
#                 [--cluster "UP-OPTIONS"] [--out DIR] [-b 8] [-e 2M] [-f 4] [-n 100] [NAME=BUILD_DIR ...]
#
# Without NAME=BUILD_DIR, the build in build/ (or HETCCL_BUILD_DIR) as "hetccl".  Shared memory
# on one host, unless --cluster: then each rank count N is a namespace cluster of N nodes, one
# rank each (scripts/test-cluster.sh up --nodes N UP-OPTIONS, e.g. "--rate 2gbit"), so hetccl
# and Open MPI cross the same shaped kernel links.  Needs root.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
nps="2 4" runs=5 collectives="allreduce allgather reducescatter broadcast"
out=${HETCCL_BUILD_DIR:-$root/build}/size-sweep
begin=8 end=2M factor=4 iters=100
builds=()
cluster_up="" on_cluster=0
while [ $# -gt 0 ]; do
  case $1 in
    --np) nps=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --collectives) collectives=$2; shift 2 ;;
    --cluster) cluster_up=$2; on_cluster=1; shift 2 ;;
    --out) out=$2; shift 2 ;;
    -b) begin=$2; shift 2 ;;
    -e) end=$2; shift 2 ;;
    -f) factor=$2; shift 2 ;;
    -n) iters=$2; shift 2 ;;
    *=*) builds+=("$1"); shift ;;
    *) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
[ ${#builds[@]} -gt 0 ] || builds=("hetccl=${HETCCL_BUILD_DIR:-$root/build}")
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_op=${OMPI_MCA_op:-^avx}  # Open MPI's AVX ops sum int8 wrongly here (FIELD-NOTES)
mkdir -p "$out"
rm -f "$out"/*.json
warmup=$(( iters / 10 > 1 ? iters / 10 : 1 ))
cluster=$root/scripts/test-cluster.sh cluster_name=sweep
launch() {  # launch NP PROGRAM ARGS...: shared memory, or one rank per node of the cluster
  local np=$1; shift
  if [ $on_cluster -eq 1 ]; then "$cluster" run --name $cluster_name -- "$@"
  else mpirun -np "$np" --oversubscribe "$@"; fi
}
[ $on_cluster -eq 0 ] || trap '"$cluster" down --name $cluster_name >/dev/null 2>&1 || true' EXIT
for np in $nps; do
  if [ $on_cluster -eq 1 ]; then
    "$cluster" down --name $cluster_name >/dev/null 2>&1 || true
    # shellcheck disable=SC2086  # UP-OPTIONS are words for test-cluster.sh
    "$cluster" up --name $cluster_name --nodes "$np" $cluster_up >"$out/cluster-$np.log" 2>&1 ||
      { cat "$out/cluster-$np.log" >&2; exit 1; }
    "$cluster" status --name $cluster_name >>"$out/cluster-$np.log"
  fi
  for collective in $collectives; do
    for run in $(seq 1 "$runs"); do
      for build in "${builds[@]}"; do
        name=${build%%=*} dir=${build#*=}
        echo "== $name, $np ranks, $collective, run $run" >&2
        launch "$np" "$dir/apps/perf/hetccl-perf" "$collective" -b "$begin" -e "$end" \
          -f "$factor" -n "$iters" -w "$warmup" --baseline mpi -J "$out/$name.$np.$collective.$run.json" >/dev/null
      done
    done
  done
done
/usr/bin/python3 "$root/scripts/size_sweep_table.py" "$out" | tee "$out/table.md"
