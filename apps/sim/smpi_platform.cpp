#include "sim/smpi_platform.h"

#include <cstdio>
#include <sstream>
#include <vector>

namespace hetccl_sim {

namespace {

struct SimulatedRank {
  std::string host;  // NODE.gpuL
  int node = 0;      // in rank order
  int island = 0;    // formed island (scope), in rank order
  int declared = 0;  // index of its island in the description
};

// Latencies in seconds ("2.5e-06"); bandwidths in whole bytes per second ("12500000000").
std::string number(double value, const char* format = "%.10g") {
  char text[48];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

// A one-way link: bandwidth in bytes per second, latency in seconds.
void writeLink(std::ostream& xml, const std::string& id, double bytesPerSecond, double seconds) {
  xml << "    <link id=\"" << id << "\" bandwidth=\"" << number(bytesPerSecond, "%.0f") << "Bps\" latency=\""
      << number(seconds) << "s\"/>\n";
}

std::vector<SimulatedRank> ranksOf(const ClusterDescription& cluster, hetccl::IslandScope scope) {
  std::vector<SimulatedRank> ranks;
  const std::vector<std::pair<int, int>> nodes = nodesInRankOrder(cluster);
  for (size_t node = 0; node < nodes.size(); ++node) {
    const int declared = nodes[node].first;
    const int island = scope == hetccl::IslandScope::Job ? declared : static_cast<int>(node);
    for (int local = 0; local < cluster.islands[declared].ranksPerNode; ++local)
      ranks.push_back(SimulatedRank{"node" + std::to_string(node) + ".gpu" + std::to_string(local),
                                    static_cast<int>(node), island, declared});
  }
  // Job scope numbers islands by first appearance, as topologyOf() does.
  if (scope == hetccl::IslandScope::Job) {
    std::vector<int> renumbered(cluster.islands.size(), -1);
    int next = 0;
    for (SimulatedRank& rank : ranks) {
      if (renumbered[rank.declared] < 0) renumbered[rank.declared] = next++;
      rank.island = renumbered[rank.declared];
    }
  }
  return ranks;
}

std::string vendorList(const ClusterDescription& cluster, const std::vector<SimulatedRank>& ranks) {
  std::string list;
  for (size_t first = 0; first < ranks.size();) {
    size_t end = first;
    while (end < ranks.size() && ranks[end].declared == ranks[first].declared) ++end;
    list += (list.empty() ? "" : ",") + cluster.islands[ranks[first].declared].name + ":" + std::to_string(end - first);
    first = end;
  }
  return list;
}

}  // namespace

SmpiPlatform smpiPlatformOf(const ClusterDescription& cluster, hetccl::IslandScope scope) {
  const std::vector<SimulatedRank> ranks = ranksOf(cluster, scope);
  const bool uplinks = cluster.uplinkBytesPerSecond > 0;
  std::ostringstream xml;
  xml << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
      << "<!-- written by hetccl-sim --smpi-platform: one host per rank, its own link to its node's ranks\n"
      << "     and its own network link, each direction apart; routes are explicit (Full routing). -->\n"
      << "<platform version=\"4.1\">\n  <zone id=\"cluster\" routing=\"Full\">\n";
  for (const SimulatedRank& rank : ranks) xml << "    <host id=\"" << rank.host << "\" speed=\"1Gf\"/>\n";
  for (const SimulatedRank& rank : ranks) {
    const hetccl::LinkCost& intra = cluster.islands[rank.declared].intraNode;
    for (const char* direction : {"up", "down"}) {
      writeLink(xml, rank.host + "-intra-" + direction, 1.0 / intra.beta, intra.alpha / 2);
      if (cluster.networkSet)
        writeLink(xml, rank.host + "-nic-" + direction, 1.0 / cluster.network.beta, cluster.network.alpha / 2);
    }
  }
  if (uplinks) {
    int islands = 0;
    for (const SimulatedRank& rank : ranks) islands = std::max(islands, rank.island + 1);
    for (int island = 0; island < islands; ++island)
      for (const char* direction : {"up", "down"})
        writeLink(xml, "island" + std::to_string(island) + "-uplink-" + direction, cluster.uplinkBytesPerSecond, 0);
  }
  auto hop = [&xml](const std::string& link) { xml << "<link_ctn id=\"" << link << "\"/>"; };
  for (const SimulatedRank& from : ranks)
    for (const SimulatedRank& to : ranks) {
      if (&from == &to) continue;
      xml << "    <route src=\"" << from.host << "\" dst=\"" << to.host << "\" symmetrical=\"NO\">";
      if (from.node == to.node) {
        hop(from.host + "-intra-up");
        hop(to.host + "-intra-down");
      } else {
        hop(from.host + "-nic-up");
        if (uplinks && from.island != to.island) {
          hop("island" + std::to_string(from.island) + "-uplink-up");
          hop("island" + std::to_string(to.island) + "-uplink-down");
        }
        hop(to.host + "-nic-down");
      }
      xml << "</route>\n";
    }
  xml << "  </zone>\n</platform>\n";

  SmpiPlatform platform;
  platform.xml = xml.str();
  for (const SimulatedRank& rank : ranks) platform.hostfile += rank.host + "\n";
  platform.vendors = vendorList(cluster, ranks);
  return platform;
}

}  // namespace hetccl_sim
