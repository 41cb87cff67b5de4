#!/bin/bash
# Set up, build (warnings are errors), and run every test: unit tests, multi-rank tests under
# mpirun, Slurm, torch and the installed-package test; then the thread-per-rank executor tests
# under ThreadSanitizer, the paths plain runs cannot check under AddressSanitizer +
# UndefinedBehaviorSanitizer, and the parsers' fuzz targets (HETCCL_TSAN=0, HETCCL_ASAN=0,
# HETCCL_FUZZ=0 skip those steps; README, "Tests", says what each pass covers).  Ends with the
# table of stage times against scripts/ci-budget.txt, which fails a stage over its share.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# Every stage is timed; the table of stages and the budget guard come last, also after a failure.
source "$root/scripts/stage_clock.sh"
finish() {
  local rc=$?
  stage_report || rc=1
  exit $rc
}
trap finish EXIT
stage setup "$root/scripts/setup.sh"
stage build "$root/scripts/build.sh"
build=${HETCCL_BUILD_DIR:-$root/build}
# libhetccl and hetccl-perf again, with SimGrid's smpicxx, for the CTest smpi_check_16.
stage smpi-build "$root/scripts/smpi-build.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
(cd "$build" && stage tests ctest --output-on-failure -j "$(nproc)" "$@")
if [ "${HETCCL_TSAN:-1}" != 0 ]; then "$root/scripts/run-tsan-tests.sh"; fi
if [ "${HETCCL_ASAN:-1}" != 0 ]; then "$root/scripts/run-asan-tests.sh"; fi
if [ "${HETCCL_FUZZ:-1}" != 0 ]; then "$root/scripts/run-fuzz.sh"; fi
