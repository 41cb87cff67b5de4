// A cluster description as a SimGrid platform, so that hetccl's real code can run on the same
// links under SimGrid's SMPI (scripts/smpi-check.sh) and its times be set beside the cost
// model's.  The platform has what the model has, and nothing more:
//
//   - one simulated host per rank, named NODE.gpuL (node N of the description in rank order,
//     local rank L), so that with HETCCL_NODE_NAME=mpi hetccl finds the description's nodes
//     (the name up to its first dot) and forms the same islands;
//   - per rank, its own link to the other ranks of its node (`intra`) and its own network link
//     (`link inter`: one NIC per GPU), each direction separate (full duplex);
//   - where the description has an `uplink`, one per formed island and direction, which all
//     of that island's traffic to other islands crosses;
//   - a message's latency is the link's: the two links a route crosses carry half each.
//
// Rank order, vendors and islands follow topologyOf(): the hostfile lists the hosts in rank
// order, and `vendors` is the HETCCL_EMULATE_VENDORS value that gives each rank its island's
// name.  Computation is not modelled (run SMPI with smpi/simulate-computation:no and give
// the description large `reduce` and `copy` figures and no `step_overhead` to compare).
#pragma once

#include <ostream>
#include <string>

#include "base/setting_modes.h"
#include "sim/cluster_description.h"

namespace hetccl_sim {

struct SmpiPlatform {
  std::string xml;       // the platform file
  std::string hostfile;  // one host per line, in rank order
  std::string vendors;   // HETCCL_EMULATE_VENDORS: "nvidia:16,amd:16"
};

SmpiPlatform smpiPlatformOf(const ClusterDescription& cluster, hetccl::IslandScope scope);

}  // namespace hetccl_sim
