#!/bin/bash
# Fuzzes the parsers of the text users hand hetccl, with clang's libFuzzer under AddressSanitizer
# and UndefinedBehaviorSanitizer: the settings readers (HETCCL_* values) and hetccl-sim's
# cluster descriptions (test/fuzz).  Built in ${HETCCL_BUILD_DIR:-build}-fuzz; each target runs
# for HETCCL_FUZZ_SECONDS (default 60) from its checked-in seeds (plus the sim's example
# clusters), with a dictionary of its grammar's words.  A crash, a sanitizer report, a leak, a
# broken check of the target, an input slower than 10 s or one that makes the parser allocate
# more than 1 GiB fails the run, leaving the input in the build directory (crash-*, leak-*,
# timeout-*, oom-*; replay it with `hetccl-fuzz-NAME FILE`).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/stage_clock.sh"
source "$root/scripts/sanitizer_flags.sh"
trap 'rc=$?; stage_report || rc=1; exit $rc' EXIT
build=${HETCCL_BUILD_DIR:-$root/build}-fuzz
seconds=${HETCCL_FUZZ_SECONDS:-60}
fuzz_build() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${sanitizer_flags[@]}" \
    -DCMAKE_C_COMPILER="${HETCCL_FUZZ_CC:-clang}" -DCMAKE_CXX_COMPILER="${HETCCL_FUZZ_CXX:-clang++}" \
    -DHETCCL_BUILD_FUZZ=ON -DHETCCL_SANITIZE=address,undefined \
    -DCMAKE_C_FLAGS=-fno-sanitize-recover=undefined -DCMAKE_CXX_FLAGS=-fno-sanitize-recover=undefined \
    -DHETCCL_BUILD_TESTS=OFF -DHETCCL_BUILD_BENCH=OFF -DHETCCL_WITH_CUDA=OFF -DHETCCL_WITH_HIP=OFF -DHETCCL_WITH_TORCH=OFF >/dev/null &&
  cmake --build "$build" -j "$(nproc)" --target hetccl-fuzz-settings hetccl-fuzz-cluster
}
stage fuzz-build fuzz_build
fuzz() {
  local name=$1
  shift
  # New inputs go to a scratch corpus (the first directory); the seeds stay as checked in.
  local corpus=$build/corpus-$name
  mkdir -p "$corpus"
  local start=$SECONDS
  # A fixed seed by default (HETCCL_FUZZ_SEED; 0 lets libFuzzer pick one): a run then explores
  # the same inputs in the same order, as far as its time allows, so a CI result is repeatable.
  (cd "$build" && "./test/fuzz/hetccl-fuzz-$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=1024 \
    -malloc_limit_mb=1024 -seed="${HETCCL_FUZZ_SEED:-1}" -print_final_stats=1 "$corpus" "$@" \
    2>"$build/fuzz-$name.log") || {
    tail -n 60 "$build/fuzz-$name.log"
    echo "fuzz: hetccl-fuzz-$name failed (input saved in $build, log in $build/fuzz-$name.log)"
    return 1
  }
  echo "fuzz: $name clean: $(grep -o 'stat::number_of_executed_units: *[0-9]*' "$build/fuzz-$name.log" |
    grep -o '[0-9]*$') inputs in $((SECONDS - start)) s"
}
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
stage fuzz-settings fuzz settings -dict="$root/test/fuzz/settings.dict" "$root/test/fuzz/corpus/settings"
stage fuzz-cluster fuzz cluster -dict="$root/test/fuzz/cluster.dict" "$root/test/fuzz/corpus/cluster" "$root/apps/sim/examples"
