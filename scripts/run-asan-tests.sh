#!/bin/bash
# The paths a plain run cannot check for memory errors, built under AddressSanitizer and
# UndefinedBehaviorSanitizer in ${HETCCL_BUILD_DIR:-build}-asan: an out-of-bounds access, a
# use-after-free or any undefined behaviour (-fno-sanitize-recover: UB aborts instead of printing
# and going on) fails the test it happens in.  Not a second copy of the whole suite: ASan finds
# a bug in the code a test runs, and the plain suite runs the same code many times over in
# variants (rank counts, chunkings, layouts) that add no code to that.  So this pass runs each
# piece of code once:
#   unit, unit_loopback     every plan builder, the verifier, cost model, kernels, settings, the
#                           executor over the loopback with every algorithm, layout and link stack
#                           (staged, paced), the progress engine -- without MPI
#   mpi_collectives_np3     the whole MPI suite (every collective, type and op, groups, splits,
#                           invalid arguments, the asynchronous runtime) over the MPI transport
#   mpi_failures_np2, mpi_failures_peer_killed_sm
#                           timeouts, aborts, the call check, remote errors, a killed peer
#   mpi_strict_islands_2p2_hier
#                           the strict device: the staged transport, islands, hier, async
#   mpi_island_library_2p2_hier, nccl_program_islands_2p2
#                           the vendor-library path and the NCCL drop-in (lib/nccl)
# The rest (tools, Slurm, torch, the package) runs the same library code as these and is left to
# the plain pass; CUDA/HIP modules and the benchmarks are not built (without a GPU the modules
# never run past their probe), nor the torch extension (Debian's python3 is not built with ASan,
# so an instrumented extension cannot load into it).  Extra arguments go to ctest.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
source "$root/scripts/stage_clock.sh"
source "$root/scripts/sanitizer_flags.sh"
trap 'rc=$?; stage_report || rc=1; exit $rc' EXIT
build=${HETCCL_BUILD_DIR:-$root/build}-asan
tests=(unit unit_loopback mpi_collectives_np3 mpi_failures_np2 mpi_failures_peer_killed_sm
       mpi_strict_islands_2p2_hier mpi_island_library_2p2_hier nccl_program_islands_2p2)
# Only what those tests run (the stand-in vendor library comes with hetccl-mpi-tests).
targets=(hetccl-unit-tests hetccl-loopback-tests hetccl-mpi-tests hetccl-peer-killed hetccl-nccl nccl_program_shim)
asan_build() {
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${sanitizer_flags[@]}" -DHETCCL_SANITIZE=address,undefined \
    -DCMAKE_C_FLAGS=-fno-sanitize-recover=undefined -DCMAKE_CXX_FLAGS=-fno-sanitize-recover=undefined \
    -DHETCCL_BUILD_BENCH=OFF -DHETCCL_WITH_CUDA=OFF -DHETCCL_WITH_HIP=OFF -DHETCCL_WITH_TORCH=OFF >/dev/null &&
  cmake --build "$build" -j "$(nproc)" --target "${targets[@]}"
}
stage asan-build asan_build
# Leak checking is off.  Open MPI keeps thousands of allocations until exit (640 KB in 8500
# blocks for a 2-rank run) and unloads its components in MPI_Finalize; as it is built without
# frame pointers, their stacks end one frame above malloc in "<unknown module>", so no
# suppression file can name them, and reporting them took longer than some tests' limits.
# Every ASan/UBSan program run by the tests (ranks under mpirun, the tools, the package
# consumer) inherits these options from ctest's environment.
export ASAN_OPTIONS="detect_leaks=0:${ASAN_OPTIONS:-}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:${UBSAN_OPTIONS:-}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# `unit` runs without its exhaustive sweeps -- every plan for 1-17 ranks, every island layout
# of up to 16 ranks (verified, and its cost shape against its plan), every layout with every
# vendor delegation, sliced or not, the log-depth plans at hundreds of ranks, the simulator's
# bound against every prediction on the examples and on generated clusters.  Under ASan the
# first two took 890 of unit's 970 s (built -O2, on a busy 2-core machine), the next three 157
# of the remaining 181 s (built -O1), the last three 45 of 70 s; the plain pass runs them all in
# about a minute.  The same plan builders, writers, verifier and cost model run under ASan in
# the smaller plan tests (cost shapes at hundreds of ranks, broadcast delegations, the bound's
# terms) and in the loopback executor, which runs every algorithm, sliced or not, on every
# layout of 1-6 ranks here (HETCCL_TEST_LOOPBACK_MAX_RANKS; 7 and 8 ranks are the same code
# on more threads, and took 40 of its 111 s).
# GoogleTest reads the filter from the environment; a test's own --gtest_filter wins.
sweeps=(SingleIslandPlans.EveryAlgorithmCollectiveRankCountAndSizeVerifies
        IslandPlans.EveryAlgorithmCollectiveAndLayoutVerifies
        CostShape.WrittenShapesMatchThePlansOnEveryLayoutOfUpTo16Ranks
        VendorIslandPlans.AllReduceVerifiesForEveryLayoutAndDelegation
        LogDepthPlans.VerifyAtAFewHundredRanks
        IslandSlices.SlicedPlansVerifyForEveryLayoutAndDelegation
        SimBound.NoPredictionBeatsTheBoundOnTheExamples
        SimBound.NoPredictionBeatsTheBoundOnSyntheticClusters)
# A renamed sweep must not slip back in unnoticed (that once doubled this pass's time): every
# name left out has to be a test of hetccl-unit-tests.
listed=$("$build/test/unit/hetccl-unit-tests" --gtest_list_tests | awk '/^[^ ]/ {suite=$1} /^  / {print suite $1}')
for sweep in "${sweeps[@]}"; do
  if ! grep -qxF "$sweep" <<<"$listed"; then
    echo "run-asan-tests: $sweep, left out of this pass, is not a test of hetccl-unit-tests" >&2
    exit 1
  fi
done
export GTEST_FILTER="${GTEST_FILTER:--$(IFS=':'; echo "${sweeps[*]}")}"
export HETCCL_TEST_LOOPBACK_MAX_RANKS=${HETCCL_TEST_LOOPBACK_MAX_RANKS:-6}
selection="^($(IFS='|'; echo "${tests[*]}"))\$"
# A renamed or dropped test must not leave this pass quietly smaller.
found=$(cd "$build" && ctest -N -R "$selection" | sed -n 's/^Total Tests: //p')
if [ "$found" != "${#tests[@]}" ]; then
  echo "run-asan-tests: ${#tests[@]} tests named, $found found in $build: $(IFS=' '; echo "${tests[*]}")" >&2
  exit 1
fi
(cd "$build" && stage asan-tests ctest --output-on-failure -j "$(nproc)" -R "$selection" "$@")
echo "AddressSanitizer+UBSan: ${#tests[@]} tests clean"
