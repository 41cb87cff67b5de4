#include "sim/bound.h"

#include <algorithm>
#include <cmath>

namespace hetccl_sim {

namespace {

double ceilLog2(int value) { return value > 1 ? std::ceil(std::log2(static_cast<double>(value))) : 0; }

}  // namespace

AllReduceBound allReduceBound(const std::vector<FormedIsland>& islands, const hetccl::CostParameters& costs,
                              double bytes) {
  AllReduceBound bound;
  const int N = static_cast<int>(islands.size());
  int p = 0, smallest = islands.front().ranks, largest = 0;
  double islandAlpha = 0;
  for (const FormedIsland& island : islands) {
    const double g = island.ranks;
    bound.island = std::max(bound.island, 2 * (g - 1) / g * bytes * island.link.beta);
    p += island.ranks;
    smallest = std::min(smallest, island.ranks);
    largest = std::max(largest, island.ranks);
    if (island.ranks > 1) islandAlpha = std::max(islandAlpha, island.link.alpha);
  }
  if (N > 1) bound.cross = 2.0 * (N - 1) / N * (bytes / smallest) * costs.interIsland.beta;
  bound.reduce = p > 1 ? (p - 1.0) / p * bytes * costs.gamma : 0;
  bound.latency = 2 * ceilLog2(largest) * (islandAlpha + costs.stepOverhead) +
                  2 * ceilLog2(N) * (costs.interIsland.alpha + costs.stepOverhead);
  bound.total = bound.island + bound.cross + bound.reduce + bound.latency;
  bound.overlapped = std::max({bound.island, bound.cross, bound.reduce}) + bound.latency;
  return bound;
}

}  // namespace hetccl_sim
