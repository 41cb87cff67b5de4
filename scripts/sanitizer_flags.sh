# Sourced by the sanitizer scripts (run-tsan-tests.sh, run-asan-tests.sh, run-fuzz.sh).
# The sanitizer builds compile at -O1 with line tables only (-g1), as the sanitizers' own
# guides advise: reports keep their file:line stacks, and the build takes about a third of
# -O2 -g's time (69 s -> 21 s for test/mpi/collectives_test.cpp under ASan, one after the other
# on a busy 2-core machine).  The tests showed no clear slowdown: unit_loopback took 93-99 s
# under ASan at -O1 against 104 s at -O2, in different runs.
sanitizer_flags=(-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG")
