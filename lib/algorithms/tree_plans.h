// The latency-bound all-reduce for small messages: a binomial-tree reduce to rank 0 followed
// by a binomial-tree broadcast, 2*ceil(log2 p) rounds instead of the ring's 2(p-1).  Rank 0
// computes every element and the others copy it, so all ranks hold identical bits (recursive
// doubling would be one round shorter but lets every rank reduce in its own order).
#pragma once

#include "algorithms/plan.h"

namespace hetccl {

RankPlan buildTreeAllReduce(const PlanRequest& request, int rank);

}  // namespace hetccl
