#!/bin/bash
# hetccl against Open MPI (coll/tuned and coll/han) and Gloo on the same namespace cluster, and
# the cost model's prediction beside each hetccl measurement: the tables of docs/PERFORMANCE.md
# ("Test cluster").  Three runs on one cluster, each checked bit-exactly:
#   1. hetccl-perf all-reduce: ring, hier, torus and the tuner's pick, each with --model, and
#      MPI_Allreduce as Open MPI chooses it by default (coll/tuned);
#   2. the same tool with Open MPI's hierarchical coll/han forced for the MPI column;
#   3. torch.distributed all_reduce over the hetccl backend and over Gloo in one job
#      (bench/torch_allreduce.py), both on the cluster's eth0;
# then the tables (scripts/cluster_compare_table.py), also written to OUT/table.md.
#
#   cluster-compare.sh [--out DIR] [--probe] [--up "UP-OPTIONS"] [-b 8] [-e 32M] [-n 10]
#                      [-- HETCCL-PERF-OPTIONS...]
#
# --up: the cluster's layout (default: the main job's, 2 nvidia + 2 amd nodes, 2 Gbit/s
# uplinks, 1 Gbit/s between the fabrics); --probe: HETCCL_LINK_PROBE=1, so the model prices
# the links the probe measured instead of its defaults.  Needs root and a build (build/ or
# HETCCL_BUILD_DIR); exit status 77 where the cluster cannot come up (not root, no namespaces).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HETCCL_BUILD_DIR:-$root/build}
out=$build/cluster-compare
up="--nodes 4 --vendors nvidia:2,amd:2 --rate 2gbit --cross-rate 1gbit"
begin=8 end=32M iters=10 probe=0
perf_extra=()
while [ $# -gt 0 ]; do
  case $1 in
    --) shift; perf_extra=("$@"); break ;;
    --out) out=$2; shift 2 ;;
    --probe) probe=1; shift ;;
    --up) up=$2; shift 2 ;;
    -b) begin=$2; shift 2 ;;
    -e) end=$2; shift 2 ;;
    -n) iters=$2; shift 2 ;;
    *) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
  esac
done
perf=$build/apps/perf/hetccl-perf
[ -x "$perf" ] || { echo "cluster-compare: no $perf (build first: scripts/build.sh)" >&2; exit 1; }
cluster=$root/scripts/test-cluster.sh
name=compare
mkdir -p "$out"
rm -f "$out"/*.json "$out/table.md"
"$cluster" down --name $name >/dev/null 2>&1 || true
set +e
# shellcheck disable=SC2086  # the layout is a list of options
"$cluster" up --name $name $up >"$out/up.log" 2>&1
status=$?
set -e
[ $status -eq 0 ] || { tail -1 "$out/up.log" >&2; exit 77; }
trap '"$cluster" down --name $name >/dev/null 2>&1 || true' EXIT
"$cluster" status --name $name | tee "$out/cluster.txt"

export HETCCL_ISLAND_SCOPE=job  # an island is a vendor's fabric, as on a real mixed cluster
[ $probe -eq 0 ] || export HETCCL_LINK_PROBE=1
sweep=(-b "$begin" -e "$end" -f 4 -n "$iters" -w 2 "${perf_extra[@]}")
echo "== 1/3 hetccl (ring, hier, torus, auto) with the model, MPI_Allreduce (coll/tuned)"
"$cluster" run --name $name -- "$perf" allreduce "${sweep[@]}" --algo ring,hier,torus,auto \
  --baseline mpi --model -J "$out/tuned.json"
echo "== 2/3 the tuner's pick again, MPI_Allreduce with coll/han forced"
"$cluster" run --name $name --mca coll_han_priority 100 -- "$perf" allreduce "${sweep[@]}" --algo auto \
  --baseline mpi -J "$out/han.json"
if /usr/bin/python3 -c 'import torch, hetccl.torch' 2>/dev/null ||
   PYTHONPATH=$build/python /usr/bin/python3 -c 'import torch, hetccl.torch' 2>/dev/null; then
  echo "== 3/3 torch.distributed all_reduce: hetccl backend and Gloo"
  PYTHONPATH=$build/python${PYTHONPATH:+:$PYTHONPATH} GLOO_SOCKET_IFNAME=eth0 \
    "$cluster" run --name $name -- /usr/bin/python3 "$root/bench/torch_allreduce.py" \
    --store "$out/store" -b "$begin" -e "$end" -n "$iters" --json "$out/torch.json"
  rm -f "$out/store"
else
  echo "== 3/3 skipped: torch or the hetccl torch backend is not importable by /usr/bin/python3"
fi
/usr/bin/python3 "$root/scripts/cluster_compare_table.py" "$out" | tee "$out/table.md"
