#!/bin/bash
# check-stage-budget.sh STAGE-LOG BUDGET-FILE [TOTAL-SECONDS]
#
# Prints the stages of a test run (lines "NAME SECONDS EXIT-CODE", written by stage_clock.sh)
# as a table beside their shares of the CI budget (lines "NAME SECONDS" in BUDGET-FILE, '#'
# comments; the line "total SECONDS" is the whole run's budget), and exits 1 naming every stage that took more than 1.5 times its share, or that
# has no share at all: a change that costs time shows up as the stage it went to, and has to
# take the time back elsewhere or change the budget file in the open.  A stage that failed is
# marked, but that is its script's failure to report, not this check's.
set -euo pipefail
log=$1 budget=$2 total=${3:-}
awk -v total="$total" '
  FNR == NR {
    sub(/#.*/, "")
    if (NF >= 2 && $1 == "total") overall = $2
    else if (NF >= 2) { share[$1] = $2; budget += $2 }
    next
  }
  NF >= 2 { name[++n] = $1; took[n] = $2; code[n] = (NF >= 3 ? $3 : 0); sum += $2 }
  END {
    printf "\n%-14s %8s %8s %8s  %s\n", "stage", "seconds", "share", "limit", "status"
    over = 0
    for (i = 1; i <= n; i++) {
      s = name[i]
      if (!(s in share)) {
        printf "%-14s %8d %8s %8s  %s\n", s, took[i], "-", "-", "NO SHARE IN THE BUDGET"
        problems = problems sprintf("stage-budget: stage %s has no share in the budget file\n", s)
        over = 1
        continue
      }
      limit = int(share[s] * 1.5)
      status = code[i] != 0 ? "failed (exit " code[i] ")" : "ok"
      if (took[i] > limit) {
        status = "OVER BUDGET"
        problems = problems sprintf("stage-budget: stage %s took %d s, more than 1.5 x its share of %d s\n", s, took[i], share[s])
        over = 1
      }
      printf "%-14s %8d %8d %8d  %s\n", s, took[i], share[s], limit, status
    }
    printf "%-14s %8d %8d           (the stages, against the sum of their shares)\n", "stages", sum, budget
    if (total != "")
      printf "%-14s %8d %8s           (the whole run, against the budget%s)\n", "total", total, overall,
             (overall != "" && total > overall) ? ": OVER, see which stages grew" : ""
    if (over) { printf "%s", problems > "/dev/stderr"; exit 1 }
  }
' "$budget" "$log"
