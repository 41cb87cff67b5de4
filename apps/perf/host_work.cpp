#include "perf/host_work.h"

#include <algorithm>
#include <chrono>
#include <cmath>

namespace hetccl_perf {

namespace {

volatile double g_sink = 0;

double elapsedUs(uint64_t iterations) {
  const auto start = std::chrono::steady_clock::now();
  runHostWork(iterations);
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

uint64_t scaleHostWork(uint64_t iterations, double tookUs, double targetUs) {
  const double count = std::ceil(static_cast<double>(iterations) * targetUs / std::max(tookUs, 1e-3));
  return count < 1.0 ? 1 : static_cast<uint64_t>(count);
}

void runHostWork(uint64_t iterations) {
  // x -> x * k + 1 converges to 1 / (1 - k) = 1e6: no overflow, no denormals, and each step
  // depends on the one before.
  double x = 1.0;
  for (uint64_t i = 0; i < iterations; ++i) x = x * 0.999999 + 1.0;
  g_sink = x;
}

uint64_t calibrateHostWork(double targetUs) {
  // Probe until one run takes a tenth of the target or 10 ms (long enough for the clock and
  // for the core to reach its working frequency), then scale to the target and correct once.
  const double probeUs = std::min(targetUs / 10.0, 10000.0);
  uint64_t iterations = 1024;
  double tookUs = elapsedUs(iterations);
  while (tookUs < probeUs && iterations < (uint64_t{1} << 62)) {
    iterations *= 2;
    tookUs = elapsedUs(iterations);
  }
  iterations = scaleHostWork(iterations, tookUs, targetUs);
  return scaleHostWork(iterations, elapsedUs(iterations), targetUs);
}

}  // namespace hetccl_perf
