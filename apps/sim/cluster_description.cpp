#include "sim/cluster_description.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>

#include "base/numbers.h"
#include "base/quantities.h"

namespace hetccl_sim {

namespace {

// "BANDWIDTH:LATENCY" as a LinkCost.
bool parseLink(const std::string& text, hetccl::LinkCost* link) {
  size_t colon = text.find(':');
  double bandwidth = 0, latency = 0;
  if (colon == std::string::npos || !hetccl::parseBandwidth(text.substr(0, colon), &bandwidth) ||
      !hetccl::parseDuration(text.substr(colon + 1), &latency))
    return false;
  *link = hetccl::LinkCost{latency, 1.0 / bandwidth};
  return true;
}

// A node or rank count: a whole number from 1 to kMaxSimulatedRanks.
bool parseCount(const std::string& text, long long* value) {
  return hetccl::parseInteger(text, 1, kMaxSimulatedRanks, value);
}

// Parses one statement; every failure sets `*why` and returns false.
class StatementParser {
 public:
  StatementParser(ClusterDescription* cluster, std::string* why) : cluster_(cluster), why_(why) {}

  bool parse(const std::vector<std::string>& words, int line) {
    const std::string& keyword = words[0];
    if (keyword == "island") return island(words, line);
    if (keyword == "link") return link(words, line);
    if (keyword == "reduce")
      return single(words, line, [&](const std::string& v) {
        return hetccl::parseBandwidth(v, &cluster_->reduceBytesPerSecond) ||
               fail("bad bandwidth '" + v + "' (e.g. 500GB/s)");
      });
    if (keyword == "copy")
      return single(words, line, [&](const std::string& v) {
        return hetccl::parseBandwidth(v, &cluster_->copyBytesPerSecond) ||
               fail("bad bandwidth '" + v + "' (e.g. 1000GB/s)");
      });
    if (keyword == "uplink")
      return single(words, line, [&](const std::string& v) {
        return hetccl::parseBandwidth(v, &cluster_->uplinkBytesPerSecond) ||
               fail("bad bandwidth '" + v + "' (e.g. 100GB/s)");
      });
    if (keyword == "step_overhead")
      return single(words, line, [&](const std::string& v) {
        return hetccl::parseDuration(v, &cluster_->stepOverheadSeconds) || fail("bad duration '" + v + "' (e.g. 5us)");
      });
    if (keyword == "layout")
      return single(words, line, [&](const std::string& v) {
        if (v == "contiguous")
          cluster_->layout = RankLayout::Contiguous;
        else if (v == "interleaved")
          cluster_->layout = RankLayout::Interleaved;
        else
          return fail("unknown layout '" + v + "' (contiguous or interleaved)");
        return true;
      });
    return fail("unknown statement '" + keyword + "' (island, link, reduce, copy, step_overhead, layout)");
  }

 private:
  bool fail(const std::string& message) {
    *why_ = message;
    return false;
  }

  // Settings given at most once, so that a stray duplicate is not silently overridden.
  bool firstTime(const std::string& setting, int line) {
    auto [it, inserted] = seen_.emplace(setting, line);
    return inserted || fail("'" + setting + "' already given on line " + std::to_string(it->second));
  }

  template <typename Apply>
  bool single(const std::vector<std::string>& words, int line, Apply apply) {
    if (words.size() != 2) return fail("'" + words[0] + "' takes exactly one value");
    return firstTime(words[0], line) && apply(words[1]);
  }

  bool link(const std::vector<std::string>& words, int line) {
    if (words.size() != 3) return fail("expected 'link inter BANDWIDTH:LATENCY'");
    if (words[1] != "inter")
      return fail("unknown link class '" + words[1] + "' (only 'inter'; intra links belong to islands)");
    if (!firstTime("link inter", line)) return false;
    if (!parseLink(words[2], &cluster_->network))
      return fail("bad link '" + words[2] + "' (expected BANDWIDTH:LATENCY, e.g. 25GB/s:5us)");
    cluster_->networkSet = true;
    return true;
  }

  bool island(const std::vector<std::string>& words, int line) {
    if (words.size() < 2 || words[1].find('=') != std::string::npos) return fail("island needs a name");
    IslandDescription island;
    island.name = words[1];
    island.line = line;
    for (const IslandDescription& other : cluster_->islands)
      if (other.name == island.name)
        return fail("island '" + island.name + "' already declared on line " + std::to_string(other.line));
    std::map<std::string, std::string> values;
    for (size_t i = 2; i < words.size(); ++i) {
      size_t equals = words[i].find('=');
      if (equals == std::string::npos) return fail("expected key=value, got '" + words[i] + "'");
      std::string key = words[i].substr(0, equals);
      if (key != "nodes" && key != "ranks_per_node" && key != "intra" && key != "library")
        return fail("unknown island key '" + key + "' (nodes, ranks_per_node, intra, library)");
      if (!values.emplace(key, words[i].substr(equals + 1)).second) return fail("island key '" + key + "' given twice");
    }
    for (const char* key : {"nodes", "ranks_per_node", "intra"})
      if (!values.count(key)) return fail("island '" + island.name + "' lacks " + key + "=");
    long long nodes = 0, ranksPerNode = 0;
    if (!parseCount(values["nodes"], &nodes)) return fail("bad nodes='" + values["nodes"] + "' (a positive integer)");
    if (!parseCount(values["ranks_per_node"], &ranksPerNode))
      return fail("bad ranks_per_node='" + values["ranks_per_node"] + "' (a positive integer)");
    if (!parseLink(values["intra"], &island.intraNode))
      return fail("bad intra='" + values["intra"] + "' (expected BANDWIDTH:LATENCY, e.g. 150GB/s:2us)");
    if (nodes * ranksPerNode + cluster_->rankCount() > kMaxSimulatedRanks)
      return fail("more than " + std::to_string(kMaxSimulatedRanks) + " ranks in all");
    island.nodes = static_cast<int>(nodes);
    island.ranksPerNode = static_cast<int>(ranksPerNode);
    if (values.count("library")) {
      island.library = values["library"];
      if (island.library.empty()) return fail("library= needs a name (nccl, rccl) or none");
    }
    cluster_->islands.push_back(island);
    return true;
  }

  ClusterDescription* cluster_;
  std::string* why_;
  std::map<std::string, int> seen_;  // setting -> line
};

// The larger latency and the smaller bandwidth of two links.
hetccl::LinkCost slower(const hetccl::LinkCost& a, const hetccl::LinkCost& b) {
  return hetccl::LinkCost{std::max(a.alpha, b.alpha), std::max(a.beta, b.beta)};
}

}  // namespace

int ClusterDescription::rankCount() const {
  int total = 0;
  for (const IslandDescription& island : islands) total += island.nodes * island.ranksPerNode;
  return total;
}

std::string DescriptionError::describe() const {
  return line > 0 ? "line " + std::to_string(line) + ": " + message : message;
}

bool parseClusterDescription(std::istream& input, ClusterDescription* cluster, DescriptionError* error) {
  ClusterDescription result;
  std::string why;
  StatementParser parser(&result, &why);
  std::string text;
  int line = 0;
  while (std::getline(input, text)) {
    ++line;
    std::istringstream words(text.substr(0, text.find('#')));
    std::vector<std::string> tokens;
    for (std::string word; words >> word;) tokens.push_back(word);
    if (tokens.empty()) continue;
    if (!parser.parse(tokens, line)) {
      *error = DescriptionError{line, why};
      return false;
    }
  }
  if (result.islands.empty()) {
    *error =
        DescriptionError{0, "no island declared (e.g. 'island nvidia nodes=2 ranks_per_node=4 intra=150GB/s:2us')"};
    return false;
  }
  for (const IslandDescription& island : result.islands)
    if (!result.networkSet && (result.islands.size() > 1 || island.nodes > 1)) {
      *error = DescriptionError{0,
                                "no 'link inter BANDWIDTH:LATENCY', needed when there are several islands or an "
                                "island spans nodes (island '" +
                                    island.name + "', line " + std::to_string(island.line) + ")"};
      return false;
    }
  *cluster = result;
  return true;
}

std::vector<std::pair<int, int>> nodesInRankOrder(const ClusterDescription& cluster) {
  std::vector<std::pair<int, int>> order;
  const int islands = static_cast<int>(cluster.islands.size());
  if (cluster.layout == RankLayout::Contiguous) {
    for (int island = 0; island < islands; ++island)
      for (int node = 0; node < cluster.islands[island].nodes; ++node) order.emplace_back(island, node);
  } else {
    int mostNodes = 0;
    for (const IslandDescription& island : cluster.islands) mostNodes = std::max(mostNodes, island.nodes);
    for (int node = 0; node < mostNodes; ++node)
      for (int island = 0; island < islands; ++island)
        if (node < cluster.islands[island].nodes) order.emplace_back(island, node);
  }
  return order;
}

const char* islandScopeName(hetccl::IslandScope scope) { return scope == hetccl::IslandScope::Node ? "node" : "job"; }

std::vector<FormedIsland> formedIslands(const ClusterDescription& cluster, hetccl::IslandScope scope) {
  std::vector<FormedIsland> formed;
  if (scope == hetccl::IslandScope::Job) {
    for (size_t i = 0; i < cluster.islands.size(); ++i) {
      const IslandDescription& island = cluster.islands[i];
      hetccl::LinkCost link = island.intraNode;
      if (island.nodes > 1) link = slower(link, cluster.network);
      formed.push_back(
          FormedIsland{static_cast<int>(i), island.nodes * island.ranksPerNode, link, island.library != "none"});
    }
    return formed;
  }
  for (const auto& [island, node] : nodesInRankOrder(cluster)) {
    (void)node;
    const IslandDescription& declared = cluster.islands[island];
    formed.push_back(FormedIsland{island, declared.ranksPerNode, declared.intraNode, declared.library != "none"});
  }
  return formed;
}

hetccl::TopologyView topologyOf(const ClusterDescription& cluster, hetccl::IslandScope scope) {
  std::vector<int> islandOfRank;
  islandOfRank.reserve(cluster.rankCount());
  // Job scope: one island id per declared island; node scope: one per node.
  int nodeId = 0;
  for (const auto& [island, node] : nodesInRankOrder(cluster)) {
    (void)node;
    const int id = scope == hetccl::IslandScope::Job ? island : nodeId++;
    islandOfRank.insert(islandOfRank.end(), cluster.islands[island].ranksPerNode, id);
  }
  hetccl::TopologyView view = hetccl::TopologyView::fromIslandIds(islandOfRank);
  // fromIslandIds numbers islands by first appearance, as formedIslands lists them.
  for (const FormedIsland& island : formedIslands(cluster, scope))
    view.islandLibrary.push_back(cluster.islands[island.declared].library != "none");
  return view;
}

hetccl::CostParameters costParametersOf(const ClusterDescription& cluster, hetccl::IslandScope scope) {
  hetccl::CostParameters costs;
  const std::vector<FormedIsland> islands = formedIslands(cluster, scope);
  costs.intraIsland = islands.front().link;
  for (const FormedIsland& island : islands) costs.intraIsland = slower(costs.intraIsland, island.link);
  // A single one-node island never crosses the network; keep the library default there.
  if (cluster.networkSet) costs.interIsland = cluster.network;
  costs.gamma = 1.0 / cluster.reduceBytesPerSecond;
  costs.copyBeta = 1.0 / cluster.copyBytesPerSecond;
  costs.stepOverhead = cluster.stepOverheadSeconds;
  if (cluster.uplinkBytesPerSecond > 0) costs.islandUplinkBeta = 1.0 / cluster.uplinkBytesPerSecond;
  return costs;
}

std::string describeLink(const hetccl::LinkCost& link) {
  char text[64];
  std::snprintf(text, sizeof text, "%.4g GB/s %.3g us", 1.0 / link.beta / 1e9, link.alpha * 1e6);
  return text;
}

}  // namespace hetccl_sim
