# shellcheck shell=bash
# shellcheck disable=SC2154  # work, started, budget, job_timeout: set by the caller
# Job helpers shared by the Slurm tests (slurm-scripts-test.sh, cluster-slurm-checks.sh),
# sourced after private_slurm_start; they hold under `set -e` too.  The caller defines say, pass and fail (which counts a
# failure), and sets work (its directory; job output goes to $work/out), started ($SECONDS at
# its start), budget (seconds for all its jobs) and job_timeout (seconds for one job).

# Seconds the next job may take: job_timeout, or what is left of the budget.
time_left() {
  local left=$((budget - (SECONDS - started)))
  [ "$left" -lt "$job_timeout" ] && echo "$((left > 1 ? left : 1))" || echo "$job_timeout"
}

# Submits one job and waits for its end (polling: sbatch --wait checks ever more rarely and
# adds up to 20 s per job), within time_left.  run_job NAME [sbatch options] SCRIPT [ARGS...];
# the status is the job's exit code (0 when it COMPLETED), 124 when it took too long.
run_job() {
  local name=$1
  shift
  local out="$work/out/$name.out" id state exit_code t0=$SECONDS limit
  [ $((SECONDS - started)) -lt "$budget" ] || { say "$name: not run, the test's $budget s are used up"; return 124; }
  limit=$(time_left)
  # Submitted from the output directory, so the scripts must find their helpers through Slurm,
  # not through the submit directory.
  id=$(cd "$work/out" && env PRIVATE_SLURM_TAG="$(cat "$PRIVATE_SLURM_DIR/tag")" \
    sbatch --parsable --output="$out" --job-name="$name" "$@") \
    || { say "$name: sbatch failed"; return 1; }
  id=${id%%;*}
  while :; do
    # The first record is the job (or a het job's component 0, which runs the script).
    state=$(scontrol show job "$id" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p' | head -n 1)
    case $state in
      PENDING | CONFIGURING | RUNNING | COMPLETING | SUSPENDED | REQUEUED | RESIZING | "") ;;
      *) break ;;
    esac
    if [ $((SECONDS - t0)) -ge "$limit" ]; then
      say "$name: job $id not finished after $limit s (state ${state:-unknown}); cancelling it"
      scancel "$id" 2>/dev/null
      return 124
    fi
    sleep 0.5
  done
  exit_code=$(scontrol show job "$id" | sed -n 's/.* ExitCode=\([0-9]*\):.*/\1/p' | head -n 1)
  say "$name: job $id $state, exit code ${exit_code:-?}, $((SECONDS - t0)) s"
  [ "$state" = COMPLETED ] && return 0
  [ "${exit_code:-0}" -ne 0 ] && return "$exit_code"
  return 1
}

# check_perf_tables NAME FILE COUNT: the file has that many perf tables, all correct.
check_perf_tables() {
  local name=$1 file=$2 want=$3 ok bad
  ok=$(grep -c '^# Out of bounds values : 0 OK' "$file" || true)
  bad=$(grep '^# Out of bounds values' "$file" | grep -vc ': 0 OK' || true)
  if [ "$ok" -eq "$want" ] && [ "$bad" -eq 0 ]; then
    pass "$name: $ok perf table(s), no wrong values"
  else
    fail "$name: expected $want '# Out of bounds values : 0 OK', found $ok (and $bad with wrong values)"
  fi
}

show_output() { sed 's/^/    | /' "$1" 2>/dev/null || true; }
