#include "algorithms/p2p_plan.h"

namespace hetccl {

RankPlan buildPointToPointPlan(const std::vector<PointToPoint>& operations, int rank, int nranks) {
  RankPlan plan;
  plan.rank = rank;
  plan.nranks = nranks;
  plan.algorithm = "p2p";
  Step stage, step;
  for (size_t i = 0; i < operations.size(); ++i) {
    const PointToPoint& p2p = operations[i];
    Region region{kFirstUserBuffer + static_cast<int>(i), 0, p2p.bytes};
    if (p2p.isSend && p2p.stageThroughScratch) {
      Region staged{kScratchBuffer, plan.scratchCount, p2p.bytes};
      plan.scratchCount += p2p.bytes;
      addOp(stage, Op{OpKind::Copy, -1, region, staged});
      addOp(step, Op{OpKind::Send, p2p.peer, staged, {}});
    } else if (p2p.isSend) {
      addOp(step, Op{OpKind::Send, p2p.peer, region, {}});
    } else {
      addOp(step, Op{OpKind::RecvCopy, p2p.peer, {}, region});
    }
  }
  pushIfAny(plan, stage);
  pushIfAny(plan, step);
  return plan;
}

}  // namespace hetccl
