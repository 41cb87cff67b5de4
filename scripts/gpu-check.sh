#!/bin/bash
# The check to run on a machine with an NVIDIA GPU (written for one H200 with CUDA 13), within
# 8 minutes: build hetccl with the CUDA module, run the device tests (which must not skip
# there), measure the reduction kernels against the device's own copy bandwidth, run
# hetccl-perf on 1 rank with the CUDA device (the whole all-reduce handed to NCCL, then hetccl's
# own plans) and on 2 and 4 ranks sharing it through the host-staged path, run the asynchronous
# runtime's ordering tests on the GPU (streams waiting on the engine's flags with
# cuStreamWaitValue64, hetccl's own stream, queued and group operations), measure how much of an
# all-reduce hides behind host work (--overlap), and print one table last: each step, its
# figure and the figure's target. Every step has a time limit; a failed step is reported and
# the rest still run.
#
#   scripts/gpu-check.sh [--mpi PREFIX] [--deps ROOT] [--build DIR] [--out DIR] [--force]
#
#   --mpi PREFIX  an MPI that is not on PATH: an install prefix (PREFIX/bin/mpicc), or a folder
#                 where Debian's Open MPI packages were unpacked (dpkg-deb -x; PREFIX/usr/bin/
#                 mpicc.openmpi): the script relocates it with OPAL_PREFIX.
#   --deps ROOT   a folder of other unpacked Debian packages (hwloc, GoogleTest, ...): its
#                 binaries, libraries, CMake packages and pkg-config files are used.
#                 scripts/gpu-deps.sh DIR prepares one folder that serves as both.
#   --build DIR   build folder (default: $TMPDIR/hetccl-gpu-check).
#   --out DIR     where logs go (default: $OUT if set, else BUILD/logs).
#   --force       go on to the GPU measurements even when the device tests found no GPU.
# Environment: HETCCL_CUDA_ARCHS (default 90: the H200's; the library's own default is 80;90),
# HETCCL_GPU_CHECK_SECONDS (the whole run's time budget, default 470).
#
# Exit status: 0 when every step that ran passed. `bash -n` checks the syntax; on a machine
# without a GPU the script runs up to the device tests and stops there (unless --force).
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build="${TMPDIR:-/tmp}/hetccl-gpu-check"
logs=""
mpi_prefix=""
deps_root=""
force=0
while [ $# -gt 0 ]; do
  case "$1" in
    --mpi) mpi_prefix=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    --deps) deps_root=$(cd "$2" && pwd) || exit 2; shift 2 ;;
    --build) build=$2; shift 2 ;;
    --out) logs=$2; shift 2 ;;
    --force) force=1; shift ;;
    -h|--help) sed -n '2,25p' "$0"; exit 0 ;;
    *) echo "gpu-check: unknown argument $1 (see --help)" >&2; exit 2 ;;
  esac
done
logs=${logs:-${OUT:-$build/logs}}
mkdir -p "$build" "$logs"
start=$(date +%s)
# 8 minutes minus room for the summary; HETCCL_GPU_CHECK_SECONDS stretches it on slow machines.
deadline=$((start + ${HETCCL_GPU_CHECK_SECONDS:-470}))

# ---- results -------------------------------------------------------------------------------
names=(); states=(); seconds=(); notes=()
record() { names+=("$1"); states+=("$2"); seconds+=("$3"); notes+=("$4"); }
# missed_last: the last step ran but its figure missed its target, which fails it.
missed_last() {
  if [ "${states[${#states[@]}-1]}" = PASS ]; then states[${#states[@]}-1]="MISSED"; failures=$((failures + 1)); fi
}
# against VALUE MINIMUM: sets $verdict to "ok", "MISSED" (missed_last) or "?" (no figure).
against() {
  verdict="?"
  [ -z "$1" ] && return
  if awk -v v="$1" -v t="$2" 'BEGIN { exit !(v >= t) }'; then verdict=ok; else verdict=MISSED; missed_last; fi
}
failures=0
# run_step NAME LIMIT_S COMMAND...: runs with a time limit (never past the deadline), logs to
# $logs/NAME.log, records PASS/FAIL/TIMEOUT. Returns the command's status.
run_step() {
  local name=$1 limit=$2; shift 2
  local left=$((deadline - $(date +%s)))
  if [ "$left" -lt 10 ]; then
    record "$name" "NOT RUN" 0 "out of time"; failures=$((failures + 1)); return 124
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  local t0; t0=$(date +%s)
  echo "== $name (limit ${limit}s)"
  timeout --kill-after=5 "$limit" "$@" >"$logs/$name.log" 2>&1
  local rc=$?
  local dt=$(($(date +%s) - t0))
  tail -n 5 "$logs/$name.log" | sed 's/^/   /'
  if [ $rc -eq 0 ]; then record "$name" PASS "$dt" ""
  elif [ $rc -eq 124 ] || [ $rc -eq 137 ]; then record "$name" TIMEOUT "$dt" "limit ${limit}s"; failures=$((failures + 1))
  else record "$name" FAIL "$dt" "exit $rc, see $name.log"; failures=$((failures + 1)); fi
  return $rc
}
note_last() { notes[${#notes[@]}-1]=$1; }

# ---- dependencies --------------------------------------------------------------------------
prepend() { local var=$1 dir=$2; [ -d "$dir" ] || return 0; export "$var=$dir${!var:+:${!var}}"; }
# Unpacked .deb trees keep /usr paths in their pkg-config files: rewrite copies to this root.
use_root() {
  local r=$1
  for d in "$r/usr/bin" "$r/bin"; do prepend PATH "$d"; done
  for d in "$r/usr/lib/x86_64-linux-gnu" "$r/usr/lib" "$r/lib/x86_64-linux-gnu" "$r/lib"; do
    prepend LD_LIBRARY_PATH "$d"; prepend LIBRARY_PATH "$d"
  done
  prepend CMAKE_PREFIX_PATH "$r"; prepend CMAKE_PREFIX_PATH "$r/usr"
  # Each package's config folder too: CMake only looks in lib/<arch>/cmake when it knows the
  # multiarch name, which distributions other than Debian's family do not set.
  for d in "$r"/usr/lib/*/cmake/*/; do prepend CMAKE_PREFIX_PATH "${d%/}"; done
  local pc="$build/pkgconfig"; mkdir -p "$pc"
  for f in "$r"/usr/lib/*/pkgconfig/*.pc "$r"/usr/lib/pkgconfig/*.pc "$r"/usr/share/pkgconfig/*.pc \
           "$r"/lib/pkgconfig/*.pc; do
    [ -f "$f" ] || continue
    sed -E "s#^(prefix|exec_prefix|libdir|includedir)=/usr#\1=$r/usr#" "$f" >"$pc/$(basename "$f")"
  done
  prepend PKG_CONFIG_PATH "$pc"
}
mpi_args=()
mpirun_cmd=mpirun
if [ -n "$deps_root" ]; then use_root "$deps_root"; fi
if [ -n "$mpi_prefix" ]; then
  if [ -x "$mpi_prefix/usr/bin/mpicc.openmpi" ]; then  # unpacked Debian packages
    use_root "$mpi_prefix"
    prepend LD_LIBRARY_PATH "$mpi_prefix/usr/lib/x86_64-linux-gnu/openmpi/lib"
    export OPAL_PREFIX="$mpi_prefix/usr"
    mpi_args=(-DMPI_C_COMPILER="$mpi_prefix/usr/bin/mpicc.openmpi"
              -DMPI_CXX_COMPILER="$mpi_prefix/usr/bin/mpicxx.openmpi")
    mpirun_cmd="$mpi_prefix/usr/bin/mpirun.openmpi"
  elif [ -x "$mpi_prefix/bin/mpicc" ]; then  # an ordinary (possibly moved) install
    use_root "$mpi_prefix"
    export OPAL_PREFIX="$mpi_prefix"
    mpi_args=(-DMPI_HOME="$mpi_prefix")
    mpirun_cmd="$mpi_prefix/bin/mpirun"
  else
    echo "gpu-check: --mpi $mpi_prefix has neither bin/mpicc nor usr/bin/mpicc.openmpi" >&2; exit 2
  fi
fi
# Open MPI as root, more ranks than cores, shared memory only on this one node (no UCX/verbs
# probing inside a container).
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
nvcc_path=$(command -v nvcc || true)
[ -z "$nvcc_path" ] && [ -x /usr/local/cuda/bin/nvcc ] && nvcc_path=/usr/local/cuda/bin/nvcc

{
  echo "== machine"
  echo "host $(hostname), $(nproc) cores, $(date -u +%FT%TZ)"
  (command -v nvidia-smi >/dev/null && nvidia-smi -L) || echo "nvidia-smi: not found"
  echo "nvcc: ${nvcc_path:-not found} $([ -n "$nvcc_path" ] && "$nvcc_path" --version | tail -n 2 | head -n 1)"
  echo "cmake: $(command -v cmake || echo 'not found')  c++: $(command -v c++ || echo 'not found')"
  echo "mpirun: $(command -v "$mpirun_cmd" || echo 'not found')  pkg-config hwloc: $(pkg-config --modversion hwloc 2>/dev/null || echo 'not found')"
} | tee "$logs/machine.log"
for tool in cmake c++ pkg-config; do
  command -v "$tool" >/dev/null || { echo "gpu-check: $tool is missing (see --deps)" >&2; exit 3; }
done
[ -n "$nvcc_path" ] || { echo "gpu-check: no nvcc (CUDA toolkit) found" >&2; exit 3; }
command -v "$mpirun_cmd" >/dev/null || { echo "gpu-check: no MPI found (see --mpi)" >&2; exit 3; }

# ---- build ---------------------------------------------------------------------------------
# Google Benchmark only serves the host micro-benchmarks: left out when absent.
has_cmake_package() {
  local dir
  for dir in ${CMAKE_PREFIX_PATH:+${CMAKE_PREFIX_PATH//:/ }} /usr /usr/local; do
    compgen -G "$dir/lib*/cmake/$1/*onfig.cmake" >/dev/null && return 0
    compgen -G "$dir/lib/*/cmake/$1/*onfig.cmake" >/dev/null && return 0
  done
  return 1
}
bench_flag=ON
has_cmake_package benchmark || bench_flag=OFF
run_step configure 90 cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_COMPILER="$nvcc_path" -DCMAKE_CUDA_ARCHITECTURES="${HETCCL_CUDA_ARCHS:-90}" \
  -DHETCCL_WITH_CUDA=ON -DHETCCL_WITH_HIP=OFF -DHETCCL_BUILD_BENCH=$bench_flag "${mpi_args[@]}"
targets=(hetccl hetccl-device-cuda hetccl-perf hetccl-device-loader-tests hetccl-device-cuda-tests
         hetccl-bench-device-reduce hetccl-mpi-tests hetccl-nccl framework_replay)
available=()
target_list=$(cmake --build "$build" --target help 2>/dev/null)
for t in "${targets[@]}"; do
  if grep -qE "(^|\.\.\. )$t(:|$)" <<<"$target_list"; then available+=("$t")
  else echo "gpu-check: target $t is not defined in this build"; fi
done
run_step build 240 cmake --build "$build" -j "$(nproc)" --target "${available[@]}"

exe() { find "$build" -type f -name "$1" -perm -u+x 2>/dev/null | head -n 1; }

# ---- device tests --------------------------------------------------------------------------
gpu_present=0
tests=$(exe hetccl-device-cuda-tests)
loader_tests=$(exe hetccl-device-loader-tests)
[ -n "$loader_tests" ] && run_step loader-tests 30 "$loader_tests"
if [ -n "$tests" ]; then
  run_step cuda-tests 120 "$tests"
  if grep -q "\[  SKIPPED \]" "$logs/cuda-tests.log"; then
    note_last "SKIPPED: $(grep -m1 'no device\]' "$logs/cuda-tests.log" | sed 's/.*no CUDA device: //')"
    states[${#states[@]}-1]="SKIP"
  else
    gpu_present=1
    note_last "$(grep -m1 '^\[ device' "$logs/cuda-tests.log" | sed 's/^\[ device *\] //' | cut -c1-70)"
  fi
else
  record cuda-tests "NOT RUN" 0 "not built (no GoogleTest?)"
fi
if [ $gpu_present -eq 0 ] && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  # nvidia-smi sees a GPU that the tests could not use: that is a failure, not a skip.
  states[${#states[@]}-1]="FAIL"; failures=$((failures + 1))
fi
if [ $gpu_present -eq 0 ] && [ $force -eq 0 ]; then
  echo "gpu-check: no usable CUDA device; stopping before the GPU measurements (--force to go on)"
  record "gpu measurements" "NOT RUN" 0 "no GPU"
else
  # ---- kernel bandwidth ----------------------------------------------------------------------
  bench=$(exe hetccl-bench-device-reduce)
  if [ -n "$bench" ]; then
    run_step reduce-bench 60 "$bench" --backend cuda --bytes 256M --iters 50
    copy=$(awk '$1=="RESULT" && $2=="copy"{print $3}' "$logs/reduce-bench.log")
    f32=$(awk '$1=="RESULT" && $2=="float_sum"{print $3}' "$logs/reduce-bench.log")
    bf16=$(awk '$1=="RESULT" && $2=="bfloat16_sum"{print $3}' "$logs/reduce-bench.log")
    # A sum reads two buffers and writes one: at half the copy rate it is memory-bound enough.
    local_target=$(awk -v c="${copy:-0}" 'BEGIN { printf "%.0f", c / 2 }')
    against "$f32" "$local_target"
    note_last "GB/s: copy ${copy:-?}, f32 sum ${f32:-?}, bf16 sum ${bf16:-?}; target f32 >= copy/2 = $local_target: $verdict"
  else
    record reduce-bench "NOT RUN" 0 "hetccl-bench-device-reduce not built"
  fi
  # ---- hetccl-perf on the CUDA device ----------------------------------------------------------
  perf=$(exe hetccl-perf)
  perf_run() {  # NAME RANKS MAXBYTES [VAR=value...]
    local name=$1 ranks=$2 max=$3; shift 3
    # Local ranks inherit mpirun's environment (HETCCL_DEVICE, LD_LIBRARY_PATH, OPAL_PREFIX).
    run_step "$name" 75 env HETCCL_DEVICE=cuda HETCCL_DEBUG=WARN "$@" "$mpirun_cmd" -np "$ranks" \
      --oversubscribe "$perf" allreduce -b 8 -e "$max" -f 4 -n 10 -w 2 -d float
    local busbw wrong algo
    busbw=$(grep -m1 'Avg bus bandwidth' "$logs/$name.log" | awk '{print $NF}')
    wrong=$(grep -m1 'Out of bounds' "$logs/$name.log" | sed 's/.*: *//')
    algo=$(grep -v '^#' "$logs/$name.log" | awk 'NF>=13{print $NF}' | sort -u | tr '\n' ' ')
    local exact=MISSED
    [ "${wrong:-x}" = "0 OK" ] && exact=ok
    [ "$exact" = ok ] || missed_last
    note_last "avg busbw ${busbw:-?} GB/s, algo ${algo:-?}; target 0 wrong values: $exact (${wrong:-?})"
  }
  # NCCL for the native path: HETCCL_NCCL_LIBRARY, else the loader's, the toolkit's, or the
  # one a Python image ships (nvidia-nccl wheels).
  find_nccl() {
    local candidate
    for candidate in "${HETCCL_NCCL_LIBRARY:-}" \
        "$(ldconfig -p 2>/dev/null | awk '/libnccl\.so\.2 /{print $NF; exit}')" \
        "$(dirname "$nvcc_path")/../lib64/libnccl.so.2" \
        $(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null) \
        $(find / -xdev -name libnccl.so.2 2>/dev/null | head -n 1); do
      [ -n "$candidate" ] && [ -f "$candidate" ] && { echo "$candidate"; return 0; }
    done
    return 1
  }
  if [ -n "$perf" ]; then
    # One rank: the whole all-reduce handed to NCCL (native path), then hetccl's own plans.
    if nccl=$(find_nccl); then
      perf_run perf-1rank-native 1 256M HETCCL_ISLAND_LIBRARY="$nccl"
    else
      record perf-1rank-native "NOT RUN" 0 "no libnccl.so.2 found (set HETCCL_NCCL_LIBRARY)"
    fi
    perf_run perf-1rank-own 1 256M HETCCL_ISLAND_LIBRARY=off
    # Ranks sharing the GPU: NCCL refuses one GPU twice in a communicator, so these run
    # hetccl's own plans over the host-staged path.
    perf_run perf-2ranks-staged 2 64M HETCCL_ISLAND_LIBRARY=off HETCCL_STAGING=force
    # The asynchronous runtime: a 64 MiB all-reduce against as long a host computation; the
    # progress thread should hide at least half of the shorter one (target: overlap >= 50 %).
    run_step overlap-2ranks 75 env HETCCL_DEVICE=cuda HETCCL_DEBUG=WARN HETCCL_ISLAND_LIBRARY=off \
      HETCCL_STAGING=force "$mpirun_cmd" -np 2 --oversubscribe "$perf" allreduce --overlap -b 64M -e 64M \
      -n 5 -w 1 -d float
    overlap=$(grep -v '^#' "$logs/overlap-2ranks.log" | awk 'NF>=13{print $10; exit}')
    against "$overlap" 50
    note_last "overlap ${overlap:-?} %; target >= 50 %: $verdict"
    perf_run perf-4ranks-staged 4 64M HETCCL_ISLAND_LIBRARY=off HETCCL_STAGING=force
    # Island slices on CUDA streams: two emulated islands of 2 whose island steps go to
    # hetccl's own drop-in (NCCL refuses one GPU twice), 4 slices on the island stream while
    # the exchange runs on the main one; exactness is the check, the time is for the record.
    dropin=$(find "$build" -name 'libhetccl-nccl.so' 2>/dev/null | head -n 1)
    if [ -n "$dropin" ]; then
      perf_run perf-4ranks-island-slices 4 64M HETCCL_EMULATE_VENDORS=nvidia:2,amd:2 \
        HETCCL_ISLAND_LIBRARY="$dropin" HETCCL_ISLAND_SLICES=4 HETCCL_STAGING=force
    else
      record perf-4ranks-island-slices "NOT RUN" 0 "libhetccl-nccl.so not built"
    fi
  else
    record hetccl-perf "NOT RUN" 0 "not built"
  fi
  # ---- the asynchronous runtime's ordering tests on the GPU ---------------------------------
  mpi_tests=$(exe hetccl-mpi-tests)
  if [ -n "$mpi_tests" ]; then
    run_step async-2ranks 90 env HETCCL_DEVICE=cuda HETCCL_DEBUG=WARN HETCCL_ISLAND_LIBRARY=off \
      HETCCL_STAGING=force OMPI_MCA_op=^avx "$mpirun_cmd" -np 2 --oversubscribe "$mpi_tests" \
      --gtest_filter='AsyncSemantics.*' --gtest_brief=1
    passed=$(grep -m1 -o '\[  PASSED  \] [0-9]* test' "$logs/async-2ranks.log" | grep -o '[0-9]*' | head -n 1)
    skipped=ok
    grep -q 'SKIPPED' "$logs/async-2ranks.log" && { skipped=MISSED; missed_last; }
    note_last "${passed:-0} tests passed; target all, none skipped: $skipped"
  else
    record async-2ranks "NOT RUN" 0 "hetccl-mpi-tests not built"
  fi
fi

# ---- the NCCL framework replay on the GPU ---------------------------------------------------
# test/nccl/framework_replay.c: lazy member-only groups in rank-dependent order, non-blocking
# creation, a watchdog thread, pairs, split, PreMulSum, abort of one group; 4 ranks sharing the
# GPU (hetccl's own plans: NCCL refuses one GPU twice), data moved in and out through the
# drop-in itself (--staged), since the program cannot read device memory.
replay=$(exe framework_replay)
if [ "$gpu_present" = 1 ] && [ -n "$replay" ]; then
  run_step framework-replay 90 env HETCCL_DEVICE=cuda HETCCL_DEBUG=WARN HETCCL_ISLAND_LIBRARY=off \
    HETCCL_STAGING=force HETCCL_EMULATE_VENDORS=nvidia:2,amd:2 \
    "$root/test/nccl/run_replay.sh" "$logs/replay-store" "$mpirun_cmd" -np 4 --oversubscribe "$replay" --staged
  replayed=$(grep -c 'checks passed$' "$logs/framework-replay.log")
  [ "$replayed" = 4 ] || missed_last
  note_last "${replayed:-0} of 4 ranks passed every check; target 4"
else
  record framework-replay "NOT RUN" 0 "no GPU or framework_replay not built"
fi

# ---- summary -------------------------------------------------------------------------------
{
  echo
  echo "== gpu-check summary ($(($(date +%s) - start)) s; logs in $logs)"
  printf '%-18s %-8s %5s  %s\n' step result secs "figure; target"
  for i in "${!names[@]}"; do
    printf '%-18s %-8s %5s  %s\n' "${names[$i]}" "${states[$i]}" "${seconds[$i]}" "${notes[$i]}"
  done
} | tee "$logs/summary.txt"
[ $failures -eq 0 ]
