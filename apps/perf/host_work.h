// The host work of hetccl-perf --overlap: a deterministic floating-point loop on the calling
// thread, so that it competes for a core as an application's own computation would (a sleep
// or a wait for a time would leave the core to the library and flatter the overlap).  Its
// size is a count of iterations, calibrated against a time, so every rank can be given the
// same work.
#pragma once

#include <cstdint>

namespace hetccl_perf {

// `iterations` steps of a dependent multiply-add chain (it cannot be vectorised or folded
// away), its result stored in a volatile sink.
void runHostWork(uint64_t iterations);

// `iterations` scaled by targetUs / tookUs (the time they took), rounded up; at least 1.
uint64_t scaleHostWork(uint64_t iterations, double tookUs, double targetUs);

// The iteration count that takes about `targetUs` on this thread now: probes with growing
// counts, scales, then measures the scaled count once and scales again.  At least 1.
uint64_t calibrateHostWork(double targetUs);

}  // namespace hetccl_perf
