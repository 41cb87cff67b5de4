#!/bin/bash
# cluster_fault.sh link-down PROGRAM NRANKS NODE TIMEOUT   (under on_cluster.sh)
# cluster_fault.sh reshape   PROGRAM NRANKS NODE RATE
#
# Runs cluster_fault.cpp (PROGRAM) on the test cluster and injects the fault once the ranks are
# all-reducing (the program's DIR/started marker):
#   link-down  NODE's uplink goes down.  Passes when every rank ends its call with a timeout or a
#              remote error within TIMEOUT (HETCCL_TIMEOUT) + 3 s of the link going down, and,
#              once the link is back up, a new communicator's all-reduce is exact on every rank.
#   reshape    NODE's uplink is shaped down to RATE (a tenth of the cluster's rate, say) while
#              the all-reduces run.  Passes when every one of them completes exactly.
set -euo pipefail
mode=$1 program=$2 nranks=$3 node=$4 arg=$5
cluster=("${HETCCL_CLUSTER:?runs under on_cluster.sh}")
name=(--name "${HETCCL_CLUSTER_NAME:?runs under on_cluster.sh}")
dir=$(mktemp -d "${TMPDIR:-/tmp}/cluster-fault.XXXXXX")
trap 'rm -rf "$dir"' EXIT
# A reshaped link that stalls must end as a timeout inside the job's own limit, not a hang.
env_timeout=(HETCCL_TIMEOUT=60)
[ "$mode" = link-down ] && env_timeout=(HETCCL_TIMEOUT="$arg")
env "${env_timeout[@]}" timeout 180 "${cluster[@]}" run "${name[@]}" -- "$program" "$mode" "$dir" >"$dir/out" 2>&1 &
job=$!

fail() { cat "$dir/out"; echo "FAIL: $*"; exit 1; }
wait_for() {  # CONDITION-COMMAND SECONDS
  local until=$((SECONDS + $2))
  while ! eval "$1"; do
    [ $SECONDS -lt $until ] || return 1
    kill -0 $job 2>/dev/null || { eval "$1"; return; }
    sleep 0.1
  done
}
wait_for '[ -s "$dir/started" ]' 60 || fail "the ranks never started all-reducing"
sleep 0.3  # well inside an all-reduce, not between two
case $mode in
  link-down)
    "${cluster[@]}" link "${name[@]}" "$node" down
    date +%s.%N >"$dir/down"
    echo "cluster_fault: $node's uplink is down"
    wait_for '[ "$(cat "$dir"/result-* 2>/dev/null | wc -l)" -ge '"$nranks"' ]' $((arg + 20)) ||
      fail "not every rank ended its call within $((arg + 20)) s of the link going down"
    "${cluster[@]}" link "${name[@]}" "$node" up
    touch "$dir/up"
    echo "cluster_fault: $node's uplink is up again"
    ;;
  reshape)
    "${cluster[@]}" shape "${name[@]}" "$node" "$arg"
    touch "$dir/reshaped"
    echo "cluster_fault: $node's uplink is shaped to $arg"
    ;;
  *) fail "mode '$mode': link-down or reshape" ;;
esac
set +e
wait $job
status=$?
set -e
grep "^rank " "$dir/out" | sort -n -k2
[ -z "${CLUSTER_FAULT_VERBOSE:-}" ] || cat "$dir/out"  # everything the job printed (HETCCL_DEBUG's lines)
[ $status -eq 0 ] || fail "the job ended with status $status"
for ((rank = 0; rank < nranks; ++rank)); do
  if [ "$mode" = reshape ]; then
    grep -q "^rank $rank: .* 0 wrong elements" "$dir/out" || fail "rank $rank did not end exact"
    continue
  fi
  line=$(cat "$dir/result-$rank") || fail "rank $rank wrote no result"
  echo "$line" | grep -Eq "result (operation timed out|remote process exited or there was a network error) " ||
    fail "rank $rank did not end with a timeout or a remote error"
  took=$(echo "$line" | sed -E 's/.* ([-0-9.]+) s after the link went down.*/\1/')
  awk -v t="$took" -v limit="$((arg + 3))" 'BEGIN { exit !(t >= 0 && t <= limit) }' ||
    fail "rank $rank ended $took s after the link went down (limit $((arg + 3)) s)"
  grep -q "^rank $rank: new communicator exact" "$dir/out" || fail "rank $rank's new communicator was not exact"
done
echo "cluster_fault $mode: every rank passed"
