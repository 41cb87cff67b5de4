#include "sim/bound.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace hetccl_sim {

namespace {

double ceilLog2(int value) { return value > 1 ? std::ceil(std::log2(static_cast<double>(value))) : 0; }

// The figure printed as the bound before: island + cross-island + reduce phases one after the
// other, with 2 log2 rounds of latency.  Each island's own link, as the description gives it.
double addedPhases(const std::vector<FormedIsland>& islands, const hetccl::CostParameters& costs, double bytes) {
  const int N = static_cast<int>(islands.size());
  int p = 0, smallest = islands.front().ranks, largest = 0;
  double island = 0, islandAlpha = 0;
  for (const FormedIsland& formed : islands) {
    const double g = formed.ranks;
    island = std::max(island, 2 * (g - 1) / g * bytes * formed.link.beta);
    p += formed.ranks;
    smallest = std::min(smallest, formed.ranks);
    largest = std::max(largest, formed.ranks);
    if (formed.ranks > 1) islandAlpha = std::max(islandAlpha, formed.link.alpha);
  }
  const double cross = N > 1 ? 2.0 * (N - 1) / N * (bytes / smallest) * costs.interIsland.beta : 0;
  const double reduce = p > 1 ? (p - 1.0) / p * bytes * costs.gamma : 0;
  const double latency = 2 * ceilLog2(largest) * (islandAlpha + costs.stepOverhead) +
                         2 * ceilLog2(N) * (costs.interIsland.alpha + costs.stepOverhead);
  return island + cross + reduce + latency;
}

}  // namespace

AllReduceBound allReduceBound(const std::vector<FormedIsland>& islands, const hetccl::CostParameters& costs,
                              double bytes) {
  AllReduceBound bound;
  bound.phases = addedPhases(islands, costs, bytes);
  const double o = costs.stepOverhead;
  const int N = static_cast<int>(islands.size());
  // The model charges its two link classes, not each island's own link: the island class is
  // the slowest link inside any island (costParametersOf).
  const double islandRate = 1 / costs.intraIsland.beta, networkRate = N > 1 ? 1 / costs.interIsland.beta : 0;
  int p = 0, smallest = islands.front().ranks, largest = 0;
  double rates = 0, slowestRank = std::numeric_limits<double>::infinity();
  bool vendorSteps = false;  // an island whose vendor library runs its steps (island_slices.h)
  for (const FormedIsland& island : islands) {
    p += island.ranks;
    smallest = std::min(smallest, island.ranks);
    largest = std::max(largest, island.ranks);
    const double rate = (island.ranks > 1 ? islandRate : 0) + networkRate;
    rates += rate * island.ranks;
    slowestRank = std::min(slowestRank, rate);
    vendorSteps = vendorSteps || (island.library && island.ranks > 1);
  }
  if (p < 2) {
    bound.total = o;  // nothing to move; the model charges a step at least
    return bound;
  }
  // The cheapest step that moves anything: a latency of a link class the ranks have.
  double alpha = std::numeric_limits<double>::infinity();
  if (largest > 1) alpha = costs.intraIsland.alpha;
  if (N > 1) alpha = std::min(alpha, costs.interIsland.alpha);
  bound.links = o + alpha + std::max(2 * (p - 1.0) * bytes / rates, bytes / slowestRank);
  if (N > 1) {
    const double network = o + costs.interIsland.alpha;
    bound.cross = network + costs.interIsland.beta * std::max(bytes / smallest, 2 * (N - 1.0) * bytes / p);
    if (costs.islandUplinkBeta > 0) bound.uplink = network + costs.islandUplinkBeta * 2 * (N - 1.0) / N * bytes;
  }
  const double overlappedReductions = vendorSteps && N > 1 ? 2 : 1;
  bound.reduce = o + (p - 1.0) / p * bytes * costs.gamma / overlappedReductions;
  bound.total = std::max({bound.links, bound.cross, bound.uplink, bound.reduce});
  return bound;
}

}  // namespace hetccl_sim
