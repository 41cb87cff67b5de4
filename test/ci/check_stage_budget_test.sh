#!/bin/bash
# The CI budget guard (scripts/check-stage-budget.sh) against made-up stage logs: it passes a
# run within the shares, fails one with a stage over 1.5 times its share or with a stage the
# budget does not name, naming that stage each time; and the real budget's shares add up to no
# more than CI's 40 minutes.
set -uo pipefail
root=$1
check=$root/scripts/check-stage-budget.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

printf 'setup 100\nbuild 200\n' >"$work/budget"
printf 'setup 100 0\nbuild 299 0\n' >"$work/within"
printf 'setup 100 0\nbuild 301 0\n' >"$work/over"
printf 'setup 10 0\nsurprise 1 0\n' >"$work/unknown"

"$check" "$work/within" "$work/budget" 400 >"$work/out" 2>&1 || fail "a run within its shares was refused: $(cat "$work/out")"
grep -q '^build  *299  *200  *300  ok' "$work/out" || fail "the table lacks the build row: $(cat "$work/out")"
if "$check" "$work/over" "$work/budget" >"$work/out" 2>&1; then fail "a stage at 1.5 x its share + 1 s passed"; fi
grep -q 'stage build took 301 s, more than 1.5 x its share of 200 s' "$work/out" || fail "the over-budget stage is not named: $(cat "$work/out")"
if "$check" "$work/unknown" "$work/budget" >"$work/out" 2>&1; then fail "a stage without a share passed"; fi
grep -q 'stage surprise has no share' "$work/out" || fail "the stage without a share is not named: $(cat "$work/out")"

budget=$(awk '{sub(/#.*/, "")} $1 == "total" {print $2}' "$root/scripts/ci-budget.txt")
[ "$budget" = 2400 ] || fail "scripts/ci-budget.txt gives the whole run ${budget:-no} s, not CI's 40 minutes"
total=$(awk '{sub(/#.*/, "")} NF >= 2 && $1 != "total" {s += $2} END {print s}' "$root/scripts/ci-budget.txt")
[ "$total" -le "${budget:-0}" ] || fail "the shares in scripts/ci-budget.txt add up to $total s, more than the $budget s budget"
# Every stage the scripts time has a share.
for name in $(grep -hv '^ *#' "$root"/scripts/run-*.sh | grep -o 'stage [a-z-]* ' | awk '{print $2}' | sort -u); do
  grep -q "^$name " "$root/scripts/ci-budget.txt" || fail "stage $name (timed in scripts/) has no share in scripts/ci-budget.txt"
done
[ "$failures" = 0 ] && echo "stage budget guard: ok (shares add up to $total of 2400 s)"
exit $((failures > 0))
