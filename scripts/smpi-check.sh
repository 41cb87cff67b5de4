#!/bin/bash
# hetccl's real code under SimGrid's SMPI, on platforms written from hetccl-sim's cluster
# descriptions, against hetccl-sim's predictions and SMPI's own MPI_Allreduce algorithms
# (docs/SIM.md, "Checked by SimGrid's SMPI").
#
#   scripts/smpi-check.sh [--ranks "16 64 256"] [--shapes "pernode trunk"] [--sizes "64K 1M 16M"]
#                         [--algos LIST] [--mpi-algos "lr rab_rdb default"] [--iters N] [--out DIR]
#                         [--max-total-bytes N] [--check-up-to RANKS] [--quick]
#
# Builds hetccl with smpicxx into ${HETCCL_SMPI_BUILD_DIR:-build-smpi} (libhetccl and
# hetccl-perf only) and hetccl-sim in ${HETCCL_BUILD_DIR:-build}, writes per shape and rank
# count a description, its platform (hetccl-sim --smpi-platform), runs hetccl-perf under
# smpirun once for hetccl's algorithms and once per SMPI all-reduce algorithm for the MPI
# baseline, and prints per algorithm and size: SMPI's time, hetccl-sim's prediction, their
# ratio.  Results (JSON and the table) go to DIR (default smpi-check/ in the build directory).
# Results are checked bit-exactly up to --check-up-to ranks (16): hetccl-perf's reference costs
# O(ranks) per element on every rank, which at 64 ranks and 16 MiB took longer than the
# simulation itself; larger counts run the same code unchecked (hetccl-perf -c 0).
# --quick: 16 ranks, the per-node shape, 1 MiB, ring and hier, the default MPI algorithm (the
# CTest smpi_check_16), failing also where SMPI and hetccl-sim are more than 25 % apart.
# Exit status: 0; 1 when a run fails or gives wrong values; 77 when SimGrid is not installed
# (the CTest is then skipped).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
ranks="16 64 256" shapes="pernode trunk" sizes="64K 1M 16M"
algos="ring,hier,torus,hier-rhd,hier-tree,hier-dbtree,auto" mpi_algos="lr rab_rdb default"
iters=1 out="" quick=0 check_up_to=16
# Every rank holds about 3 buffers of the size: above this many bytes in all, a size is left
# out at that rank count (this machine has 24 GiB; --max-total-bytes).
max_total_bytes=$((8 << 30))
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks=$2; shift 2 ;;
    --shapes) shapes=$2; shift 2 ;;
    --sizes) sizes=$2; shift 2 ;;
    --algos) algos=$2; shift 2 ;;
    --mpi-algos) mpi_algos=$2; shift 2 ;;
    --iters) iters=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --max-total-bytes) max_total_bytes=$2; shift 2 ;;
    --check-up-to) check_up_to=$2; shift 2 ;;
    --quick) quick=1; shift ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    *) echo "smpi-check: unknown argument $1" >&2; exit 2 ;;
  esac
done
if [ $quick = 1 ]; then
  ranks=16 shapes=pernode sizes=1M algos=ring,hier mpi_algos=default iters=1
fi
if ! command -v smpicxx >/dev/null || ! command -v smpirun >/dev/null; then
  echo "smpi-check: SimGrid's smpicxx/smpirun not found (apt-get install libsimgrid-dev simgrid)" >&2
  exit 77
fi

build=${HETCCL_BUILD_DIR:-$root/build}
smpi_build=${HETCCL_SMPI_BUILD_DIR:-$root/build-smpi}
out=${out:-$build/smpi-check}
mkdir -p "$out"
"$root/scripts/smpi-build.sh" "$smpi_build" >&2
if [ ! -x "$build/apps/sim/hetccl-sim" ]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
  cmake --build "$build" -j "$(nproc)" --target hetccl-sim >&2
fi
sim=$build/apps/sim/hetccl-sim
perf=$smpi_build/apps/perf/hetccl-perf

# A description per shape and rank count: nodes of 8 ranks, half NVIDIA, half AMD.  Network
# only: SMPI does not simulate the computation here, so the model is told reductions and
# copies are free and steps cost nothing.
describe() {  # shape ranks
  local nodes=$(($2 / 16))
  cat <<EOF
# smpi-check: $1, $2 ranks (written by scripts/smpi-check.sh)
island nvidia nodes=$nodes ranks_per_node=8 intra=100GB/s:2us
island amd    nodes=$nodes ranks_per_node=8 intra=100GB/s:2us
link inter 12.5GB/s:5us
reduce 1000TB/s
copy 1000TB/s
step_overhead 0us
EOF
  # trunk: one island per vendor (HETCCL_ISLAND_SCOPE=job), its traffic to the other vendor
  # through one shared 25 GB/s trunk each way.
  if [ "$1" = trunk ]; then echo "uplink 25GB/s"; fi
}
scope_of() { [ "$1" = trunk ] && echo job || echo node; }

bytes_of() { numfmt --from=iec "$1"; }

# SMPI: no computation simulated, no cost for MPI_Test (hetccl blocks in MPI_Waitany), the
# plain latency + bandwidth network model (no SMPI calibration factors, no cross traffic), and
# libhetccl privatised per rank (its globals are per process).
smpi_flags=(--cfg=smpi/simulate-computation:no --cfg=smpi/test:0 --cfg=smpi/iprobe:0
            --cfg=network/model:CM02 --cfg=network/crosstraffic:0
            --cfg=smpi/privatize-libs:libhetccl.so.0 --cfg=smpi/host-speed:1Gf
            # SMPI's default MPI_Allgather (hetccl's bootstrap exchanges) waits on one request
            # per peer, O(ranks^2) per wait: at 256 ranks creation took over 10 minutes.
            --cfg=smpi/allgather:rdb)
export HETCCL_PROGRESS=caller HETCCL_WAIT=block HETCCL_HOST_STREAMS=inline HETCCL_NODE_NAME=mpi HETCCL_DEVICE=host
export LD_LIBRARY_PATH=$smpi_build/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# SMPI copies the program and libhetccl per rank into its temporary directory: one of our own,
# so that two checks at once do not remove each other's copies.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
for shape in $shapes; do
  for n in $ranks; do
    if [ $((n % 16)) != 0 ]; then echo "smpi-check: $n ranks is not a multiple of 16" >&2; exit 2; fi
    base=$out/$shape-$n
    describe "$shape" "$n" > "$base.cluster"
    scope=$(scope_of "$shape")
    "$sim" "$base.cluster" --island-scope "$scope" --smpi-platform "$base" >/dev/null
    check=1
    [ "$n" -gt "$check_up_to" ] && check=0
    run_sizes=()
    for size in $sizes; do
      if [ $(($(bytes_of "$size") * 3 * n)) -le "$max_total_bytes" ]; then run_sizes+=("$size"); fi
    done
    if [ ${#run_sizes[@]} = 0 ]; then continue; fi
    min=${run_sizes[0]} max=${run_sizes[-1]}
    # Sizes are the listed ones when they are consecutive powers of 16 (the defaults); -f 16.
    "$sim" "$base.cluster" --island-scope "$scope" -b "$min" -e "$max" -f 16 --json > "$base.sim.json"
    run() {  # json-file [smpirun flags...] -- [hetccl-perf flags...]
      local json=$1; shift
      local smpirun_extra=()
      while [ "$1" != -- ]; do smpirun_extra+=("$1"); shift; done
      shift
      echo "smpi-check: $shape, $n ranks: ${smpirun_extra[*]} $*" >&2
      if ! HETCCL_ISLAND_SCOPE=$scope HETCCL_EMULATE_VENDORS=$(cat "$base.vendors") \
          smpirun -np "$n" -platform "$base.xml" -hostfile "$base.hosts" "${smpi_flags[@]}" "${smpirun_extra[@]}" \
            --cfg=smpi/tmpdir:"$tmp" \
            "$perf" allreduce -b "$min" -e "$max" -f 16 -n "$iters" -w 1 -c "$check" -J "$json" "$@" > "$json.log" 2>&1; then
        echo "smpi-check: the run failed; its output:" >&2
        tail -30 "$json.log" >&2
        status=1
      fi
    }
    run "$base.hetccl.json" -- --algo "$algos"
    for m in $mpi_algos; do
      cfg=()
      [ "$m" != default ] && cfg=(--cfg=smpi/allreduce:"$m")
      # hetccl's cheapest plan to simulate (fewest messages) rides along: only MPI's column is read.
      run "$base.mpi-$m.json" "${cfg[@]}" -- --algo small --baseline mpi
    done
  done
done
strict=()
[ $quick = 1 ] && strict=(--strict)
python3 "$root/scripts/smpi_check_table.py" "$out" --shapes "$shapes" --ranks "$ranks" --mpi-algos "$mpi_algos" "${strict[@]}" \
  | tee "$out/table.md" || status=1
exit $status
