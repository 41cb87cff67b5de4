# Sourced by the test scripts: times their stages and keeps CI within its budget.
#
#   stage NAME COMMAND...   runs COMMAND and appends "NAME SECONDS EXIT-CODE" to the stage log
#                           ($HETCCL_STAGE_LOG); returns COMMAND's exit code
#   stage_report            prints the log as a table against scripts/ci-budget.txt and fails,
#                           naming the stage, when a stage took more than 1.5 times its share
#
# The first script to source this file owns the log (a fresh temporary file) and reports it
# when it exits; scripts it calls (run-tsan-tests.sh, ...) append to the same log, so
# scripts/run-tests.sh prints one table for the whole run while a sanitizer script run alone
# prints its own.
stage_clock_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [ -z "${HETCCL_STAGE_LOG:-}" ]; then
  HETCCL_STAGE_LOG=$(mktemp "${TMPDIR:-/tmp}/hetccl-stages.XXXXXX")
  export HETCCL_STAGE_LOG
  stage_clock_owner=1
  stage_clock_start=$SECONDS
else
  stage_clock_owner=0
fi

# A shell function run as a stage runs without errexit (bash ignores -e inside a || list):
# chain its steps with &&.
stage() {
  local name=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  echo "$name $((SECONDS - start)) $rc" >>"$HETCCL_STAGE_LOG"
  return $rc
}

# The table and the guard (scripts/check-stage-budget.sh, also a CTest of its own).
stage_report() {
  [ "$stage_clock_owner" = 1 ] || return 0
  local rc=0
  "$stage_clock_root/scripts/check-stage-budget.sh" "$HETCCL_STAGE_LOG" "$stage_clock_root/scripts/ci-budget.txt" \
    "$((SECONDS - stage_clock_start))" || rc=$?
  rm -f "$HETCCL_STAGE_LOG"
  return $rc
}
