// Where the cost model's link parameters come from, in order of precedence:
//   emulation   HETCCL_EMULATE_LINKS (the pacing the transport applies);
//   measured    HETCCL_LINK_PROBE=1: ping-pongs and concurrent streams at init (link_probe.h;
//               rank 0's figures, broadcast, so all ranks agree);
//   defaults    per link type (same node or across nodes).
// The log says which.
#pragma once

#include <string>

#include "algorithms/cost_model.h"
#include "core/emulation.h"
#include "core/topology.h"

namespace hetccl {

struct LinkParameters {
  CostParameters costs;
  std::string source;  // "emulation", "measured", "defaults"
};

// Collective over the members (topology.h brings the bootstrap in).
Status chooseLinkParameters(Bootstrap& members, const JobTopology& topology, const EmulatedLinks& emulated,
                            LinkParameters* parameters);

}  // namespace hetccl
