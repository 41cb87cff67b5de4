// The link probe (HETCCL_LINK_PROBE=1): what the links between a communicator's members
// measure at creation, for the cost model.  Rank 0 times ping-pongs with one member of its own
// island and one of another island; where both islands have members on several nodes, pairs
// across the two islands also stream at once, which shows a trunk the islands share.  Every
// member takes part (the other members wait quietly meanwhile) and gets rank 0's figures.
#pragma once

#include "algorithms/cost_model.h"
#include "core/bootstrap.h"
#include "core/topology.h"

namespace hetccl {

struct ProbedLinks {
  bool intraMeasured = false, interMeasured = false;
  LinkCost intraIsland, interIsland;
  double islandUplinkBeta = 0;  // 0: concurrent cross-island pairs did not slow each other
  int concurrentPairs = 0;      // how many streamed at once (0: not measured)
};

// Collective over the members.
Status probeLinks(Bootstrap& members, const JobTopology& topology, ProbedLinks* probed);

}  // namespace hetccl
