// libFuzzer target for hetccl-sim's cluster descriptions (apps/sim/cluster_description.h).
// An input is a description file.  It must parse or be refused with a message; a description
// that parses must give what hetccl-sim's tuner runs on: a topology of as many ranks as it
// describes and links of finite, positive speed.  A crash, a sanitizer report, an unbounded
// allocation or a broken promise fails the run.
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>

#include "sim/cluster_description.h"

namespace {

void expectUsable(const hetccl::LinkCost& link) {
  if (!std::isfinite(link.alpha) || link.alpha < 0 || !std::isfinite(link.beta) || link.beta <= 0) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::istringstream input(std::string(reinterpret_cast<const char*>(data), size));
  hetccl_sim::ClusterDescription cluster;
  hetccl_sim::DescriptionError error;
  if (!hetccl_sim::parseClusterDescription(input, &cluster, &error)) {
    if (error.message.empty()) std::abort();
    return 0;
  }
  const int ranks = cluster.rankCount();
  if (ranks < 1 || ranks > hetccl_sim::kMaxSimulatedRanks) std::abort();
  // The topology is built for small jobs only, so that each input stays fast; the rank bound
  // above keeps larger ones in reach of the real tool.
  // Both island scopes: per node (the library's default) and vendor-wide.
  for (hetccl::IslandScope scope : {hetccl::IslandScope::Node, hetccl::IslandScope::Job}) {
    if (ranks <= 4096 && hetccl_sim::topologyOf(cluster, scope).nranks != ranks) std::abort();
    const hetccl::CostParameters costs = hetccl_sim::costParametersOf(cluster, scope);
    expectUsable(costs.intraIsland);
    expectUsable(costs.interIsland);
    if (!std::isfinite(costs.gamma) || costs.gamma <= 0 || !std::isfinite(costs.copyBeta) || costs.copyBeta <= 0 ||
        !std::isfinite(costs.stepOverhead) || costs.stepOverhead < 0)
      std::abort();
  }
  return 0;
}
