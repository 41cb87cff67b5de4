// The algorithms hetccl can run, which collectives and topologies each applies to, and the
// one entry point that builds a rank's plan for a chosen algorithm.
#pragma once

#include <string>
#include <vector>

#include "algorithms/algorithm_names.h"
#include "algorithms/plan.h"

namespace hetccl {

// Whether `algorithm` can run `collective` on `topology`; if not, *reason says why.
bool algorithmApplies(Algorithm algorithm, Collective collective, const TopologyView& topology, std::string* reason);

// The plan of `rank`.  The algorithm must apply (see algorithmApplies).
RankPlan buildPlan(Algorithm algorithm, const PlanRequest& request, int rank);

}  // namespace hetccl
