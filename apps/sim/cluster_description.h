// The cluster description hetccl-sim reads: islands of ranks and the links between them,
// turned into the TopologyView and CostParameters the library's tuner works with.
//
// Format: one statement per line; `#` starts a comment; blank lines are ignored; keywords and
// keys are lower case.
//
//   island NAME nodes=N ranks_per_node=R intra=BANDWIDTH:LATENCY [library=NAME|none]
//       A vendor-homogeneous group of N nodes with R ranks (GPUs) each.  `intra` is the link
//       between ranks of one node of the island (NVLink, Infinity Fabric, PCIe).  `library`
//       names the vendor collectives library that runs the island's collective steps (nccl,
//       rccl; any name but `none` counts), as HETCCL_ISLAND_LIBRARY would: the plans then
//       hand the island's reduce-scatter and all-gather to it.  Default none (hetccl's own
//       island algorithms).  At least one island; names are unique.
//   link inter BANDWIDTH:LATENCY
//       The network between nodes, per rank (one NIC per GPU): used across islands and between
//       nodes of one island.  Required when there are several islands or an island spans nodes.
//   reduce BANDWIDTH        bytes reduced per second by a rank (gamma = 1 / this)
//   copy BANDWIDTH          bytes copied locally per second
//   step_overhead DURATION  the executor's fixed cost per pipeline step
//   layout contiguous|interleaved
//       How ranks are numbered: island after island, node after node (contiguous, the
//       default), or the islands' nodes dealt in turn (island A's node 0, island B's node 0,
//       A's node 1, ...; an island that runs out of nodes drops out).  Within a node, ranks
//       are consecutive.
//
// BANDWIDTH is a number with B/s KB/s MB/s GB/s TB/s (bytes, decimal) or Kb/s Mb/s Gb/s
// Tb/s (bits); DURATION and LATENCY a number with s ms us ns.  `reduce`, `copy` and
// `step_overhead` default to the library's CostParameters defaults.
//
// Island scope (HETCCL_ISLAND_SCOPE, hetccl-sim --island-scope): the library forms one island
// per vendor and node by default (`node`), or one per vendor across nodes (`job`).  A declared
// island of N nodes is then N islands of R ranks, or one of N x R.
//
// Simplification: the cost model has one link class for every pair of ranks inside an
// island and one across islands.  The intra-island class is therefore the slowest link that
// any island uses inside itself: its `intra` link, and, with job scope, the network too when
// it spans nodes (slowest = the larger latency and the smaller bandwidth, taken separately).
#pragma once

#include <istream>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/cost_model.h"
#include "algorithms/topology_view.h"
#include "base/setting_modes.h"

namespace hetccl_sim {

struct IslandDescription {
  std::string name;
  int nodes = 0;
  int ranksPerNode = 0;
  hetccl::LinkCost intraNode;
  std::string library = "none";  // the island's vendor library, or "none"
  int line = 0;                  // where it was declared, for messages
};

enum class RankLayout { Contiguous, Interleaved };

struct ClusterDescription {
  std::vector<IslandDescription> islands;
  bool networkSet = false;
  hetccl::LinkCost network;
  double reduceBytesPerSecond = 1.0 / hetccl::CostParameters{}.gamma;
  double copyBytesPerSecond = 1.0 / hetccl::CostParameters{}.copyBeta;
  double stepOverheadSeconds = hetccl::CostParameters{}.stepOverhead;
  double uplinkBytesPerSecond = 0;  // what an island's cross traffic shares (0: not shared)
  RankLayout layout = RankLayout::Contiguous;

  int rankCount() const;
};

// Where and why a description is wrong.  line is 1-based; 0 for the file as a whole.
struct DescriptionError {
  int line = 0;
  std::string message;
  std::string describe() const;  // "line 3: ..." or the message alone
};

// The largest job a description may describe (keeps rank arithmetic far from int overflow).
constexpr int kMaxSimulatedRanks = 1 << 20;

bool parseClusterDescription(std::istream& input, ClusterDescription* cluster, DescriptionError* error);

// The node order of the layout: (declared island, node within it) in rank order; each node's
// ranks are consecutive.
std::vector<std::pair<int, int>> nodesInRankOrder(const ClusterDescription& cluster);

// Ranks numbered by the layout; islands as `scope` forms them, numbered by first rank.
hetccl::TopologyView topologyOf(const ClusterDescription& cluster, hetccl::IslandScope scope);
// See "Simplification" above.
hetccl::CostParameters costParametersOf(const ClusterDescription& cluster, hetccl::IslandScope scope);

// One island of the job as `scope` forms it: its size and the link its members share.
struct FormedIsland {
  int declared = 0;  // index into ClusterDescription::islands
  int ranks = 0;
  hetccl::LinkCost link;  // the slowest link inside it
  bool library = false;   // its vendor library runs its collective steps
};
// The formed islands, in topologyOf's island order.
std::vector<FormedIsland> formedIslands(const ClusterDescription& cluster, hetccl::IslandScope scope);
const char* islandScopeName(hetccl::IslandScope scope);  // "node", "job"

// "150 GB/s 2 us" and the like, for the report's header.
std::string describeLink(const hetccl::LinkCost& link);

}  // namespace hetccl_sim
