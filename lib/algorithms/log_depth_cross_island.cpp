#include "algorithms/log_depth_cross_island.h"

namespace hetccl {

namespace {

// Every part in [firstPart, endPart) of every segment of this rank's shard, sent to or
// received from the owner of that segment in `island`.
struct SegmentParts {
  const AllReduceLayout& layout;
  std::pair<int, int> segments;  // [first, last) of this rank's shard

  template <typename Visit>
  void forEach(int firstPart, int endPart, Visit visit) const {
    for (int segment = segments.first; segment < segments.second; ++segment)
      for (int part = firstPart; part < endPart; ++part) visit(segment, layout.atom(kOutputBuffer, segment, part));
  }
  void send(Step& step, int island, int firstPart, int endPart) const {
    forEach(firstPart, endPart, [&](int segment, const Region& atom) {
      addOp(step, Op{OpKind::Send, layout.owner(island, segment), atom, {}});
    });
  }
  void receiveReduce(Step& step, int island, int firstPart, int endPart) const {
    forEach(firstPart, endPart, [&](int segment, const Region& atom) {
      addOp(step, Op{OpKind::RecvReduce, layout.owner(island, segment), atom, atom});
    });
  }
  void receiveCopy(Step& step, int island, int firstPart, int endPart) const {
    forEach(firstPart, endPart, [&](int segment, const Region& atom) {
      addOp(step, Op{OpKind::RecvCopy, layout.owner(island, segment), {}, atom});
    });
  }
  void divide(Step& step, int firstPart, int endPart) const {
    forEach(firstPart, endPart, [&](int, const Region& atom) { addOp(step, Op{OpKind::Divide, -1, {}, atom}); });
  }
};

}  // namespace

void addHalvingDoublingAcrossIslands(RankPlan& plan, const PlanRequest& request, const AllReduceLayout& layout,
                                     const TopologyView& topology, int rank) {
  const int N = topology.islandCount(), P = layout.parts();
  const int J = topology.islandOf[rank];
  const SegmentParts mine{layout, layout.segmentRangeOfShard(J, topology.indexInIsland[rank])};
  Step step;
  if (J >= P) {  // folded: hand the partial to island J - P, take the result back
    mine.send(step, J - P, 0, P);
    pushIfAny(plan, step);
    mine.receiveCopy(step, J - P, 0, P);
    pushIfAny(plan, step);
    return;
  }
  const bool foldsIn = J + P < N;
  if (foldsIn) {
    mine.receiveReduce(step, J + P, 0, P);
    pushIfAny(plan, step);
  }
  // Halving: the parts this owner is responsible for halve each round; it sends the other
  // half to the partner that keeps it, and folds the partner's partial of its own half in.
  int first = 0;
  for (int half = P / 2; half >= 1; half /= 2) {
    const int partner = J ^ half;
    const bool lower = J < first + half;
    const int keep = lower ? first : first + half, give = lower ? first + half : first;
    mine.send(step, partner, give, give + half);
    mine.receiveReduce(step, partner, keep, keep + half);
    pushIfAny(plan, step);
    first = keep;
  }
  // Now part J is finished here, and only here.
  if (request.average) mine.divide(step, J, J + 1);
  pushIfAny(plan, step);
  // Doubling: swap finished ranges of growing size with the same partners in reverse order.
  for (int size = 1; size < P; size *= 2) {
    const int partner = J ^ size;
    const int have = J & ~(size - 1), get = partner & ~(size - 1);
    mine.send(step, partner, have, have + size);
    mine.receiveCopy(step, partner, get, get + size);
    pushIfAny(plan, step);
  }
  if (foldsIn) {
    mine.send(step, J + P, 0, P);
    pushIfAny(plan, step);
  }
}

void addTreeAcrossIslands(RankPlan& plan, const PlanRequest& request, const AllReduceLayout& layout,
                          const TopologyView& topology, int rank) {
  const int N = topology.islandCount();
  const int J = topology.islandOf[rank];
  const SegmentParts mine{layout, layout.segmentRangeOfShard(J, topology.indexInIsland[rank])};
  Step step;
  // Reduce: in round `bit`, an island whose lowest set bit is `bit` hands its subtree's
  // partial to island J - bit and is done; the others fold in J + bit's, when it exists.
  int parentBit = 0;
  for (int bit = 1; bit < N; bit *= 2) {
    if (J & bit) {
      mine.send(step, J - bit, 0, 1);
      pushIfAny(plan, step);
      parentBit = bit;
      break;
    }
    if (J + bit < N) {
      mine.receiveReduce(step, J + bit, 0, 1);
      pushIfAny(plan, step);
    }
  }
  if (J == 0 && request.average) {
    mine.divide(step, 0, 1);
    pushIfAny(plan, step);
  }
  // Broadcast down the same tree: the result comes from the parent, then goes to the
  // children, largest subtree first.
  if (J != 0) {
    mine.receiveCopy(step, J - parentBit, 0, 1);
    pushIfAny(plan, step);
  }
  int top = 1;
  while (top < N) top *= 2;
  for (int bit = (J == 0 ? top : parentBit) / 2; bit >= 1; bit /= 2)
    if (J + bit < N) {
      mine.send(step, J + bit, 0, 1);
      pushIfAny(plan, step);
    }
}

}  // namespace hetccl
