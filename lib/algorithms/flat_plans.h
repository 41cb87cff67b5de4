// Plans that treat every rank alike (no islands): the flat ring for the reducing and
// gathering collectives, a pipelined chain for broadcast and reduce, and a direct exchange
// for all-to-all.  They are the baseline every hierarchical algorithm is measured against.
#pragma once

#include "algorithms/cost_shape.h"
#include "algorithms/plan.h"

namespace hetccl {

RankPlan buildRingAllReduce(const PlanRequest& request, int rank);
// Its cost shape, written directly (cost_shape.h).
CostShape ringAllReduceShape(const PlanRequest& request, int rank);
RankPlan buildRingReduceScatter(const PlanRequest& request, int rank);
RankPlan buildRingAllGather(const PlanRequest& request, int rank);
RankPlan buildChainBroadcast(const PlanRequest& request, int rank);
RankPlan buildChainReduce(const PlanRequest& request, int rank);
RankPlan buildDirectAlltoAll(const PlanRequest& request, int rank);
// Every rank sends its input to rank+1 and receives from rank-1 (nccl-tests' sendrecv).
RankPlan buildRingSendRecv(const PlanRequest& request, int rank);

// The flat plan for any collective.
RankPlan buildFlatPlan(const PlanRequest& request, int rank);

}  // namespace hetccl
