#!/bin/bash
# The thread-per-rank executor tests (hetccl-loopback-tests) built alone under ThreadSanitizer,
# in ${HETCCL_BUILD_DIR:-build}-tsan, and run with halt_on_error: a data race or a
# use-after-free between rank threads, stream workers and copy streams fails the run.  No MPI
# job is started: the ranks are threads over the loopback transport.  The executor's sweep of
# every plan runs on 1 to 5 ranks here (every algorithm, collective and kind of island layout
# already runs there; 6 to 8 took 110 of this pass's 210 s), to 6 in the ASan pass and to 8 in
# the plain one.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/stage_clock.sh"
source "$root/scripts/sanitizer_flags.sh"
trap 'rc=$?; stage_report || rc=1; exit $rc' EXIT
build=${HETCCL_BUILD_DIR:-$root/build}-tsan
tsan_build() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${sanitizer_flags[@]}" -DHETCCL_SANITIZE=thread \
    -DHETCCL_BUILD_BENCH=OFF -DHETCCL_WITH_CUDA=OFF -DHETCCL_WITH_HIP=OFF -DHETCCL_WITH_TORCH=OFF >/dev/null &&
  cmake --build "$build" -j "$(nproc)" --target hetccl-loopback-tests
}
stage tsan-build tsan_build
# gcc 12's ThreadSanitizer cannot start on kernels that randomise mmap with more bits than it
# expects ("unexpected memory mapping"); running without address randomisation avoids that
# and changes nothing else.
no_aslr=()
if command -v setarch >/dev/null && setarch "$(uname -m)" -R true 2>/dev/null; then no_aslr=(setarch "$(uname -m)" -R); fi
HETCCL_TEST_LOOPBACK_MAX_RANKS=${HETCCL_TEST_LOOPBACK_MAX_RANKS:-5} \
  TSAN_OPTIONS="halt_on_error=1 ${TSAN_OPTIONS:-}" stage tsan-tests "${no_aslr[@]}" "$build/test/unit/hetccl-loopback-tests" --gtest_brief=1
echo "ThreadSanitizer: hetccl-loopback-tests clean"
