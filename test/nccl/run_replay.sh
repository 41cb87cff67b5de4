#!/bin/sh
# run_replay.sh STORE COMMAND...: gives framework_replay a fresh file store -- empties the
# directory STORE, exports it as HETCCL_REPLAY_STORE -- and runs COMMAND (the mpiexec line) in
# its place.  Run once per test, around mpiexec, never per rank.
set -eu
store=$1
shift
case "$store" in
  "" | /) echo "run_replay.sh: refusing store directory '$store'" >&2; exit 2 ;;
esac
rm -rf "$store"
mkdir -p "$store"
HETCCL_REPLAY_STORE=$store
export HETCCL_REPLAY_STORE
exec "$@"
