// Topology discovery: every rank describes itself (host, vendor, device, PCI bus, NUMA node,
// nearby NICs from hwloc, whether its MPI is GPU-aware), the descriptions are exchanged over
// the bootstrap, and islands are formed from them: ranks of one vendor on one node (or, with
// HETCCL_ISLAND_SCOPE=job, on any node), in any rank order.
#pragma once

#include <string>
#include <vector>

#include "algorithms/topology_view.h"
#include "base/setting_modes.h"
#include "base/status.h"
#include "core/bootstrap.h"

namespace hetccl {

// Fixed-size so that it travels in one all-gather.
struct RankDescriptor {
  char host[64] = {};
  char node[64] = {};    // the host, or the emulated node name
  char vendor[16] = {};  // "host", "nvidia", "amd" (real or emulated)
  char device[64] = {};
  char pciBus[20] = {};
  char nics[96] = {};  // comma-separated network devices hwloc found
  int numaNode = -1;
  int gpuAwareMpi = 0;
  int worldRank = 0;
  int emulated = 0;
  // Hardware threads (hwloc PUs) this process's host lets it run on; 0: unknown (a simulated
  // host under SMPI, whose real machine's count says nothing about the simulated one).
  int hardwareThreads = 0;
};

struct JobTopology {
  std::vector<RankDescriptor> ranks;  // by communicator rank
  TopologyView view;
  std::vector<std::string> islandNames;   // "nvidia@node0", ...
  IslandScope scope = IslandScope::Node;  // HETCCL_ISLAND_SCOPE
  // Grid for the torus when islands are equal: row = island, column = index in island.
  bool hasGrid() const { return view.equalIslands(); }
};

// Describes this member; `deviceDescription` comes from the device backend.
Status describeThisRank(Bootstrap& members, const std::string& deviceVendor, const std::string& deviceDescription,
                        RankDescriptor* descriptor);
// Collective over the members.
Status discoverTopology(Bootstrap& members, const RankDescriptor& mine, JobTopology* topology);

}  // namespace hetccl
