#include "algorithms/flat_plans.h"

#include <utility>

#include "algorithms/algorithm_names.h"

namespace hetccl {

namespace {

// Block `index` of `buffer` when `count` elements are split into `parts` blocks.
Region block(int buffer, size_t count, int parts, int index) {
  return Region{buffer, blockBegin(count, parts, index), blockCount(count, parts, index)};
}

// A one-op step copying `src` to `dst` (nothing when in place: the data is already there).
void addLocalCopy(RankPlan& plan, const PlanRequest& request, Region src, Region dst) {
  if (request.inPlace) return;
  Step step;
  addOp(step, Op{OpKind::Copy, -1, src, dst});
  pushIfAny(plan, step);
}

void addDivide(RankPlan& plan, const PlanRequest& request, Region region) {
  if (!request.average || request.nranks == 1) return;
  Step step;
  addOp(step, Op{OpKind::Divide, -1, {}, region});
  pushIfAny(plan, step);
}

}  // namespace

// Ring reduce-scatter then ring all-gather over p nearly equal blocks.  In step s of the
// reduce-scatter, rank r passes block r-s to its right neighbour and folds block r-s-1 from
// its left one into its output; after p-1 steps it owns block r+1 fully reduced (and divided,
// for an average), which the all-gather then circulates.
RankPlan buildRingAllReduce(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "ring");
  const int p = request.nranks;
  const size_t n = request.count;
  if (p == 1) {
    addLocalCopy(plan, request, Region{kInputBuffer, 0, n}, Region{kOutputBuffer, 0, n});
    return plan;
  }
  const int left = modRank(rank - 1, p), right = modRank(rank + 1, p);
  plan.steps.reserve(2 * static_cast<size_t>(p - 1) + 1);  // reduce-scatter, divide, all-gather
  for (int s = 0; s < p - 1; ++s) {
    const int sendIndex = modRank(rank - s, p), recvIndex = modRank(rank - s - 1, p);
    Step step;
    step.ops.reserve(2);
    // The first step sends raw input; later steps forward what the previous step reduced.
    addOp(step, Op{OpKind::Send, right, block(s == 0 ? kInputBuffer : kOutputBuffer, n, p, sendIndex), {}});
    addOp(step,
          Op{OpKind::RecvReduce, left, block(kInputBuffer, n, p, recvIndex), block(kOutputBuffer, n, p, recvIndex)});
    plan.steps.push_back(std::move(step));
  }
  addDivide(plan, request, block(kOutputBuffer, n, p, modRank(rank + 1, p)));
  for (int s = 0; s < p - 1; ++s) {
    Step step;
    step.ops.reserve(2);
    addOp(step, Op{OpKind::Send, right, block(kOutputBuffer, n, p, modRank(rank + 1 - s, p)), {}});
    addOp(step, Op{OpKind::RecvCopy, left, {}, block(kOutputBuffer, n, p, modRank(rank - s, p))});
    plan.steps.push_back(std::move(step));
  }
  return plan;
}

// The same ring as costs, run by run: a block's size changes only where the ring's block
// index wraps or enters the first n % p blocks (addRotationChanges), so a few runs stand for
// the 2(p - 1) steps.
CostShape ringAllReduceShape(const PlanRequest& request, int rank) {
  const int p = request.nranks;
  const size_t n = request.count;
  if (p == 1) return costShapeOfPlan(Algorithm::Ring, request, rank);
  const TopologyView single = request.topology ? TopologyView{} : TopologyView::singleIsland(p);
  const TopologyView& topology = request.topology ? *request.topology : single;
  const int island = topology.islandOf[rank];
  const bool sendCrosses = topology.islandOf[modRank(rank + 1, p)] != island;
  const bool recvCrosses = topology.islandOf[modRank(rank - 1, p)] != island;
  auto count = [&](long index) { return blockCount(n, p, modRank(index, p)); };
  CostShape shape;
  // Reduce-scatter: step s sends block r - s and folds in block r - s - 1 (every step kept).
  std::vector<long> changes;
  addRotationChanges(rank, p, n, p - 1, &changes);
  addRotationChanges(rank - 1, p, n, p - 1, &changes);
  for (auto [s, steps] : runsBetween(changes, p - 1))
    shape.addRun({CostOp{OpKind::Send, sendCrosses, count(rank - s), 0},
                  CostOp{OpKind::RecvReduce, recvCrosses, count(rank - s - 1), 0}},
                 steps, true);
  if (request.average) shape.addRun({CostOp{OpKind::Divide, false, count(rank + 1), 0}}, 1, false);
  // All-gather: step s forwards block r + 1 - s and receives block r - s.
  changes.clear();
  addRotationChanges(rank + 1, p, n, p - 1, &changes);
  addRotationChanges(rank, p, n, p - 1, &changes);
  for (auto [s, steps] : runsBetween(changes, p - 1))
    shape.addRun({CostOp{OpKind::Send, sendCrosses, count(rank + 1 - s), 0},
                  CostOp{OpKind::RecvCopy, recvCrosses, count(rank - s), 0}},
                 steps, true);
  return shape;
}

// Ring reduce-scatter over the p blocks of the input, shifted so that rank r ends with block
// r.  Partial sums travel through two alternating scratch blocks (one being sent while the
// other is received), and the last step reduces straight into the output.
RankPlan buildRingReduceScatter(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "ring");
  const int p = request.nranks;
  const size_t c = request.count;
  if (p == 1) {
    addLocalCopy(plan, request, Region{kInputBuffer, 0, c}, Region{kOutputBuffer, 0, c});
    return plan;
  }
  plan.scratchCount = p > 2 ? 2 * c : 0;
  const int left = modRank(rank - 1, p), right = modRank(rank + 1, p);
  for (int s = 0; s < p - 1; ++s) {
    const int sendIndex = modRank(rank - 1 - s, p), recvIndex = modRank(rank - 2 - s, p);
    Region sendFrom = s == 0 ? fixedBlock(kInputBuffer, c, sendIndex) : fixedBlock(kScratchBuffer, c, (s - 1) % 2);
    Region reduceInto = s == p - 2 ? Region{kOutputBuffer, 0, c} : fixedBlock(kScratchBuffer, c, s % 2);
    Step step;
    step.ops.reserve(2);
    addOp(step, Op{OpKind::Send, right, sendFrom, {}});
    addOp(step, Op{OpKind::RecvReduce, left, fixedBlock(kInputBuffer, c, recvIndex), reduceInto});
    plan.steps.push_back(std::move(step));
  }
  addDivide(plan, request, Region{kOutputBuffer, 0, c});
  return plan;
}

// Ring all-gather: each rank forwards, in step s, the block it received in step s-1.
RankPlan buildRingAllGather(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "ring");
  const int p = request.nranks;
  const size_t c = request.count;
  const int left = modRank(rank - 1, p), right = modRank(rank + 1, p);
  Step first;
  if (!request.inPlace)
    addOp(first, Op{OpKind::Copy, -1, Region{kInputBuffer, 0, c}, fixedBlock(kOutputBuffer, c, rank)});
  if (p > 1) {
    addOp(first, Op{OpKind::Send, right, Region{kInputBuffer, 0, c}, {}});
    addOp(first, Op{OpKind::RecvCopy, left, {}, fixedBlock(kOutputBuffer, c, left)});
  }
  pushIfAny(plan, first);
  for (int s = 1; s < p - 1; ++s) {
    Step step;
    step.ops.reserve(2);
    addOp(step, Op{OpKind::Send, right, fixedBlock(kOutputBuffer, c, modRank(rank - s, p)), {}});
    addOp(step, Op{OpKind::RecvCopy, left, {}, fixedBlock(kOutputBuffer, c, modRank(rank - s - 1, p))});
    plan.steps.push_back(std::move(step));
  }
  return plan;
}

// Chain root -> root+1 -> ... : every rank receives a chunk and passes it on; the executor's
// chunk pipeline keeps every link of the chain busy.
RankPlan buildChainBroadcast(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "chain");
  const int p = request.nranks;
  const size_t n = request.count;
  const int position = modRank(rank - request.root, p);
  const int next = modRank(rank + 1, p), previous = modRank(rank - 1, p);
  const Region input{kInputBuffer, 0, n}, output{kOutputBuffer, 0, n};
  if (position == 0) {
    Step step;
    if (!request.inPlace) addOp(step, Op{OpKind::Copy, -1, input, output});
    if (p > 1) addOp(step, Op{OpKind::Send, next, input, {}});
    pushIfAny(plan, step);
    return plan;
  }
  Step receive;
  addOp(receive, Op{OpKind::RecvCopy, previous, {}, output});
  pushIfAny(plan, receive);
  if (position < p - 1) {
    Step forward;
    addOp(forward, Op{OpKind::Send, next, output, {}});
    pushIfAny(plan, forward);
  }
  return plan;
}

// Chain towards the root: the rank farthest from the root sends its input; every rank on the
// way folds in its own input and passes the partial result on.
RankPlan buildChainReduce(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "chain");
  const int p = request.nranks;
  const size_t n = request.count;
  const int position = modRank(rank - request.root, p);
  const int towardRoot = modRank(rank - 1, p), awayFromRoot = modRank(rank + 1, p);
  const Region input{kInputBuffer, 0, n}, output{kOutputBuffer, 0, n}, scratch{kScratchBuffer, 0, n};
  if (p == 1) {
    addLocalCopy(plan, request, input, output);
    return plan;
  }
  Step first;
  if (position == p - 1) {
    addOp(first, Op{OpKind::Send, towardRoot, input, {}});
    pushIfAny(plan, first);
    return plan;
  }
  addOp(first, Op{OpKind::RecvReduce, awayFromRoot, input, position == 0 ? output : scratch});
  pushIfAny(plan, first);
  if (position == 0) {
    addDivide(plan, request, output);
    return plan;
  }
  plan.scratchCount = n;
  Step forward;
  addOp(forward, Op{OpKind::Send, towardRoot, scratch, {}});
  pushIfAny(plan, forward);
  return plan;
}

// Every rank posts its p-1 sends and receives at once and lets MPI schedule them.  In place,
// the input is first saved block by block into scratch (block-wise, so that the executor's
// chunk m of a send reads exactly what chunk m of the copy wrote).
RankPlan buildDirectAlltoAll(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "direct");
  const int p = request.nranks;
  const size_t c = request.count;
  int sendBuffer = kInputBuffer;
  if (request.inPlace && p > 1) {
    Step save;
    for (int peer = 0; peer < p; ++peer)
      if (peer != rank)
        addOp(save, Op{OpKind::Copy, -1, fixedBlock(kInputBuffer, c, peer), fixedBlock(kScratchBuffer, c, peer)});
    pushIfAny(plan, save);
    plan.scratchCount = c * p;
    sendBuffer = kScratchBuffer;
  }
  Step exchange;
  if (!request.inPlace)
    addOp(exchange, Op{OpKind::Copy, -1, fixedBlock(kInputBuffer, c, rank), fixedBlock(kOutputBuffer, c, rank)});
  for (int s = 1; s < p; ++s) {
    const int to = modRank(rank + s, p), from = modRank(rank - s, p);
    addOp(exchange, Op{OpKind::Send, to, fixedBlock(sendBuffer, c, to), {}});
    addOp(exchange, Op{OpKind::RecvCopy, from, {}, fixedBlock(kOutputBuffer, c, from)});
  }
  pushIfAny(plan, exchange);
  return plan;
}

RankPlan buildRingSendRecv(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "p2p");
  const int p = request.nranks;
  const size_t n = request.count;
  if (p == 1) {
    addLocalCopy(plan, request, Region{kInputBuffer, 0, n}, Region{kOutputBuffer, 0, n});
    return plan;
  }
  Step step;
  if (request.inPlace) {
    // Sending and receiving the same buffer at once would race: save the input first.
    Step save;
    addOp(save, Op{OpKind::Copy, -1, Region{kInputBuffer, 0, n}, Region{kScratchBuffer, 0, n}});
    pushIfAny(plan, save);
    plan.scratchCount = n;
    addOp(step, Op{OpKind::Send, modRank(rank + 1, p), Region{kScratchBuffer, 0, n}, {}});
  } else {
    addOp(step, Op{OpKind::Send, modRank(rank + 1, p), Region{kInputBuffer, 0, n}, {}});
  }
  addOp(step, Op{OpKind::RecvCopy, modRank(rank - 1, p), {}, Region{kOutputBuffer, 0, n}});
  pushIfAny(plan, step);
  return plan;
}

RankPlan buildFlatPlan(const PlanRequest& request, int rank) {
  switch (request.collective) {
    case Collective::AllReduce: return buildRingAllReduce(request, rank);
    case Collective::ReduceScatter: return buildRingReduceScatter(request, rank);
    case Collective::AllGather: return buildRingAllGather(request, rank);
    case Collective::Broadcast: return buildChainBroadcast(request, rank);
    case Collective::Reduce: return buildChainReduce(request, rank);
    case Collective::AlltoAll: return buildDirectAlltoAll(request, rank);
    case Collective::SendRecv: return buildRingSendRecv(request, rank);
  }
  return RankPlan{};
}

}  // namespace hetccl
