#!/usr/bin/env bash
# Runs one command (an app under mpirun) and checks what it did, so a wrong output fails the
# test and not only a crash:
#   run_app_test.sh [--fails] [--expect REGEX]... [--reject REGEX]...
#                   [--json-check PYTHON SCRIPT EXPECTATIONS] -- COMMAND [ARGS...]
#   --fails        the command must exit non-zero (default: it must exit 0)
#   --expect RE    stdout+stderr must contain a line matching RE (grep -E)
#   --reject RE    no line may match RE
#   --json-check   stdout must be a JSON document that SCRIPT (run by PYTHON) accepts, given
#                  EXPECTATIONS ("key=value ..."; see check_info_json.py)
# On failure it prints the command's whole output, so the CTest log says what went wrong.
set -u

fails=0
expects=()
rejects=()
json_python=""
json_script=""
json_expectations=""
while [[ $# -gt 0 && "$1" != "--" ]]; do
  case "$1" in
    --fails) fails=1; shift ;;
    --expect) expects+=("$2"); shift 2 ;;
    --reject) rejects+=("$2"); shift 2 ;;
    --json-check) json_python="$2"; json_script="$3"; json_expectations="$4"; shift 4 ;;
    *) echo "run_app_test.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
if [[ $# -lt 2 ]]; then
  echo "run_app_test.sh: no command after --" >&2
  exit 2
fi
shift

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$@" >"$work/stdout" 2>"$work/stderr"
status=$?
cat "$work/stdout" "$work/stderr" >"$work/all"

problems=()
if [[ $fails -eq 1 && $status -eq 0 ]]; then problems+=("exit status 0, expected a failure"); fi
if [[ $fails -eq 0 && $status -ne 0 ]]; then problems+=("exit status $status, expected 0"); fi
for pattern in "${expects[@]+"${expects[@]}"}"; do
  grep -Eq -- "$pattern" "$work/all" || problems+=("no line matches '$pattern'")
done
for pattern in "${rejects[@]+"${rejects[@]}"}"; do
  grep -Eq -- "$pattern" "$work/all" && problems+=("a line matches '$pattern'")
done
if [[ -n "$json_script" ]]; then
  if ! "$json_python" "$json_script" $json_expectations <"$work/stdout" >"$work/json" 2>&1; then
    problems+=("JSON check failed: $(cat "$work/json")")
  fi
fi

if [[ ${#problems[@]} -eq 0 ]]; then
  echo "ok: $*"
  exit 0
fi
echo "FAILED: $*"
for p in "${problems[@]}"; do echo "  - $p"; done
echo "----- stdout -----"
cat "$work/stdout"
echo "----- stderr -----"
cat "$work/stderr"
exit 1
