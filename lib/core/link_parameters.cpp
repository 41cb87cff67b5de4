#include "core/link_parameters.h"

#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "base/log.h"
#include "base/settings_reader.h"
#include "core/link_probe.h"

namespace hetccl {

namespace {

// Shared memory between processes of one host (Open MPI's vader) and a 100 Gb/s network.
constexpr LinkCost kSameNodeLink{3e-6, 1.0 / 5e9};
constexpr LinkCost kNetworkLink{10e-6, 1.0 / 12.5e9};

bool anyIslandSpansNodes(const JobTopology& topology, bool acrossIslands) {
  for (int a = 0; a < topology.view.nranks; ++a)
    for (int b = a + 1; b < topology.view.nranks; ++b) {
      bool sameIsland = topology.view.islandOf[a] == topology.view.islandOf[b];
      if (sameIsland == acrossIslands) continue;
      if (std::strcmp(topology.ranks[a].node, topology.ranks[b].node) != 0) return true;
    }
  return false;
}

}  // namespace

double ranksPerHardwareThread(const JobTopology& topology, std::string* busiestHost) {
  std::map<std::string, int> ranksOnHost;
  for (const RankDescriptor& rank : topology.ranks) ++ranksOnHost[rank.host];
  double worst = 1;
  for (const RankDescriptor& rank : topology.ranks) {
    if (rank.hardwareThreads <= 0) continue;
    const double ratio = double(ranksOnHost[rank.host]) / rank.hardwareThreads;
    if (ratio > worst) {
      worst = ratio;
      *busiestHost = rank.host;
    }
  }
  return worst;
}

Status chooseLinkParameters(Bootstrap& members, const JobTopology& topology, const EmulatedLinks& emulated,
                            LinkParameters* parameters) {
  LinkParameters p;
  p.costs.intraIsland = anyIslandSpansNodes(topology, false) ? kNetworkLink : kSameNodeLink;
  p.costs.interIsland = anyIslandSpansNodes(topology, true) ? kNetworkLink : kSameNodeLink;
  p.source = "defaults";
  std::string busiestHost;
  const double oversubscription = ranksPerHardwareThread(topology, &busiestHost);
  if (oversubscription > 1) {
    const double handOff = (oversubscription - 1) * kOversubscribedHandOff;
    p.costs.intraIsland.alpha += handOff;
    p.costs.interIsland.alpha += handOff;
    p.ranksPerHardwareThread = oversubscription;
    HETCCL_INFO("%.3g ranks per hardware thread on %s: each message priced %.0f us more for the scheduler",
                oversubscription, busiestHost.c_str(), handOff * 1e6);
  }
  bool probe = false;
  HETCCL_TRY(readBool(SettingId::LinkProbe, &probe));
  if (emulated.any()) {
    auto apply = [](const LinkPacing& speed, LinkCost* cost) {
      if (speed.paced) *cost = LinkCost{speed.latencySeconds, 1.0 / speed.bytesPerSecond};
    };
    apply(emulated.intraIsland, &p.costs.intraIsland);
    apply(emulated.interIsland, &p.costs.interIsland);
    p.source = "emulation";
  } else if (probe) {
    ProbedLinks probed;
    HETCCL_TRY(probeLinks(members, topology, &probed));
    if (probed.intraMeasured) p.costs.intraIsland = probed.intraIsland;
    if (probed.interMeasured) p.costs.interIsland = probed.interIsland;
    p.costs.islandUplinkBeta = probed.islandUplinkBeta;
    p.source = "measured";
    char uplink[64] = "no shared uplink";
    if (probed.islandUplinkBeta > 0)
      std::snprintf(uplink, sizeof uplink, "share an uplink of %.3g GB/s", 1e-9 / probed.islandUplinkBeta);
    HETCCL_INFO(
        "link probe: intra-island %.1f us %.3g GB/s, inter-island %.1f us %.3g GB/s; %d pairs across islands "
        "at once: %s",
        p.costs.intraIsland.alpha * 1e6, 1e-9 / p.costs.intraIsland.beta, p.costs.interIsland.alpha * 1e6,
        1e-9 / p.costs.interIsland.beta, probed.concurrentPairs, uplink);
  }
  *parameters = p;
  return Status::ok();
}

}  // namespace hetccl
