// The plan of a group of point-to-point operations: every send and receive of the group is
// posted in one step, so any pattern (rings, pairwise exchanges, self-sends) completes as
// long as every receive has its matching send somewhere in the job, as NCCL's groups do.
#pragma once

#include <vector>

#include "algorithms/plan.h"

namespace hetccl {

struct PointToPoint {
  bool isSend = true;
  int peer = 0;
  size_t bytes = 0;
  // A send whose buffer overlaps a receive of the same group: MPI forbids sending from
  // memory being received into, so the data is first copied to scratch and sent from there.
  bool stageThroughScratch = false;
};

// Operation i of `operations` uses buffer kFirstUserBuffer + i; regions are in bytes.
RankPlan buildPointToPointPlan(const std::vector<PointToPoint>& operations, int rank, int nranks);

}  // namespace hetccl
