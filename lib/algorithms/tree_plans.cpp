#include "algorithms/tree_plans.h"

namespace hetccl {

RankPlan buildTreeAllReduce(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "small");
  const int p = request.nranks;
  const Region input{kInputBuffer, 0, request.count}, output{kOutputBuffer, 0, request.count};
  Step step;
  if (p == 1) {
    if (!request.inPlace) addOp(step, Op{OpKind::Copy, -1, input, output});
    pushIfAny(plan, step);
    return plan;
  }
  // Reduce: in round `mask`, ranks with that bit set hand their partial to rank - mask.
  Region partial = input;
  for (int mask = 1; mask < p; mask <<= 1) {
    if (rank & mask) {
      addOp(step, Op{OpKind::Send, rank - mask, partial, {}});
      pushIfAny(plan, step);
      break;
    }
    if (rank + mask < p) {
      addOp(step, Op{OpKind::RecvReduce, rank + mask, partial, output});
      pushIfAny(plan, step);
      partial = output;
    }
  }
  if (rank == 0 && request.average) {
    addOp(step, Op{OpKind::Divide, -1, {}, output});
    pushIfAny(plan, step);
  }
  // Broadcast: the reverse tree; a rank receives in the round of its lowest set bit.
  int top = 1;
  while (top < p) top <<= 1;
  for (int mask = top >> 1; mask >= 1; mask >>= 1) {
    if (rank % (2 * mask) == 0 && rank + mask < p)
      addOp(step, Op{OpKind::Send, rank + mask, output, {}});
    else if (rank % (2 * mask) == mask)
      addOp(step, Op{OpKind::RecvCopy, rank - mask, {}, output});
    pushIfAny(plan, step);
  }
  return plan;
}

}  // namespace hetccl
