#!/bin/sh
# Runs an NCCL program with hetccl's drop-in in place of NCCL, the two ways a user would:
#   run_with_dropin.sh preload LIBRARY PROGRAM [ARGS...]   LIBRARY first on LD_PRELOAD
#   run_with_dropin.sh libpath DIRECTORY PROGRAM [ARGS...] DIRECTORY (holding libnccl.so.2)
#                                                          first on LD_LIBRARY_PATH
# Used as the command mpirun starts on every rank, so that only the ranks, not mpirun itself,
# load the drop-in; anything already on the variable is kept after it.
set -eu
mode=$1
path=$2
shift 2
case "$mode" in
  preload)
    # A program built with AddressSanitizer (scripts/run-asan-tests.sh) must have the ASan
    # runtime loaded before every other library, or it refuses to start: it goes ahead.
    asan=$(ldd "$1" 2>/dev/null | sed -n 's/^[[:space:]]*libasan[^ ]* => \([^ ]*\) .*/\1/p' | head -n 1)
    LD_PRELOAD="${asan:+$asan:}$path${LD_PRELOAD:+:$LD_PRELOAD}"; export LD_PRELOAD ;;
  libpath) LD_LIBRARY_PATH="$path${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"; export LD_LIBRARY_PATH ;;
  *) echo "run_with_dropin.sh: unknown mode '$mode' (preload or libpath)" >&2; exit 2 ;;
esac
exec "$@"
