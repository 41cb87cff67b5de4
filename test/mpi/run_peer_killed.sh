#!/bin/bash
# run_peer_killed.sh <mpiexec> <peer_killed program> <timeout seconds> [mpiexec options...]
# Runs peer_killed.cpp on 3 ranks with HETCCL_TIMEOUT=<timeout>; rank 1 is killed mid-operation.
# Passes when both survivors report hetcclTimeout (or hetcclRemoteError, when the other survivor
# timed out first and told them) within timeout + 3 s with their stream released (a survivor whose MPI
# never returns from a call after the peer died is released by the stall watchdog, up to a
# second or so later than one whose own timeout fires), and end
# (hetcclCommAbort; not MPI_Finalize, which can hang with a dead peer) within 2 s more.  Open
# MPI itself reports the killed rank; its exit status is not the test's.
set -uo pipefail
mpiexec=$1 program=$2 timeout=$3
shift 3
output=$(HETCCL_TIMEOUT=$timeout timeout 60 "$mpiexec" -np 3 --oversubscribe "$@" "$program" 2>&1)
echo "$output" | grep '^rank '
status=0
for rank in 0 2; do
  line=$(echo "$output" | grep "^rank $rank: result ")
  if ! echo "$line" | grep -Eq "result (operation timed out|remote process exited or there was a network error) after [0-9.]+ s \(stream released\)"; then
    echo "FAIL: rank $rank did not end with a timeout or remote error and a released stream"
    status=1
    continue
  fi
  took=$(echo "$line" | sed -E 's/.* after ([0-9.]+) s .*/\1/')
  if ! awk -v t="$took" -v limit="$((timeout + 3))" 'BEGIN { exit !(t <= limit) }'; then
    echo "FAIL: rank $rank took $took s (limit $((timeout + 3)) s)"
    status=1
  fi
  ended=$(echo "$output" | grep "^rank $rank: ended " | sed -E 's/.* ended ([0-9.]+) s .*/\1/')
  if [ -z "$ended" ] || ! awk -v t="$ended" 'BEGIN { exit !(t < 2) }'; then
    echo "FAIL: rank $rank did not finish its abort within 2 s (${ended:-never})"
    status=1
  fi
done
if [ $status = 0 ]; then
  echo "peer killed: every survivor ended in time"
else
  echo "--- the job's whole output:"
  echo "$output"
fi
exit $status
