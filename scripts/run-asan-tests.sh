#!/bin/bash
# The whole test suite again, built under AddressSanitizer and UndefinedBehaviorSanitizer in
# ${HETCCL_BUILD_DIR:-build}-asan: an out-of-bounds access, a use-after-free or any
# undefined behaviour (-fno-sanitize-recover: UB aborts instead of printing and going on) fails
# the test it happens in.  CUDA/HIP modules and the benchmarks are left out: they add build
# time, and without a GPU the modules never run past their probe.  The torch extension too:
# Debian's python3 is not built with ASan, so an instrumented extension cannot load into it.
# Extra arguments go to ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${HETCCL_BUILD_DIR:-$root/build}-asan
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHETCCL_SANITIZE=address,undefined \
  -DCMAKE_C_FLAGS=-fno-sanitize-recover=undefined -DCMAKE_CXX_FLAGS=-fno-sanitize-recover=undefined \
  -DHETCCL_BUILD_BENCH=OFF -DHETCCL_WITH_CUDA=OFF -DHETCCL_WITH_HIP=OFF -DHETCCL_WITH_TORCH=OFF >/dev/null
cmake --build "$build" -j "$(nproc)"
start=$SECONDS
# Leak checking is off.  Open MPI keeps thousands of allocations until exit (640 KB in 8500
# blocks for a 2-rank run) and unloads its components in MPI_Finalize; as it is built without
# frame pointers, their stacks end one frame above malloc in "<unknown module>", so no
# suppression file can name them, and reporting them took longer than some tests' limits.
# Every ASan/UBSan program run by the tests (ranks under mpirun, the tools, the package
# consumer) inherits these options from ctest's environment.
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Every test runs, but `unit` without its two exhaustive verifier sweeps (every plan for 1-17
# ranks and every island layout): under ASan they took 890 of unit's 970 s (on a busy 2-core
# machine; the whole of unit takes 1 minute without ASan), and the same plan builders and
# verifier run under ASan in the other plan tests and the loopback executor.  GoogleTest reads
# the filter from the environment; a test's own --gtest_filter wins.
export GTEST_FILTER="${GTEST_FILTER:--FlatPlans.EveryCollectiveRankCountAndSizeVerifies:IslandPlans.EveryAlgorithmCollectiveAndLayoutVerifies}"
(cd "$build" && ctest --output-on-failure -j "$(nproc)" "$@")
echo "AddressSanitizer+UBSan: test suite clean ($((SECONDS - start)) s)"
