#include "algorithms/log_depth_cross_island.h"

#include <utility>
#include <vector>

namespace hetccl {

namespace {

// Where the algorithms below write their steps: as ops of a plan (PlanWriter), or as their
// costs (ShapeWriter, for the cost model, which cannot afford thousands of ops per step).
// Either way a step is made of ranges of parts, [firstPart, endPart), of every segment of
// this rank's shard, exchanged with that segment's owner in `island`.
class PlanWriter {
 public:
  PlanWriter(RankPlan& plan, const AllReduceLayout& layout, std::pair<int, int> segments)
      : plan_(plan), layout_(layout), segments_(segments) {}
  void send(int island, int firstPart, int endPart) {
    forEach(firstPart, endPart, [&](int segment, const Region& atom) {
      addOp(step_, Op{OpKind::Send, layout_.owner(island, segment), atom, {}});
    });
  }
  void receiveReduce(int island, int firstPart, int endPart) {
    forEach(firstPart, endPart, [&](int segment, const Region& atom) {
      addOp(step_, Op{OpKind::RecvReduce, layout_.owner(island, segment), atom, atom});
    });
  }
  void receiveCopy(int island, int firstPart, int endPart) {
    forEach(firstPart, endPart, [&](int segment, const Region& atom) {
      addOp(step_, Op{OpKind::RecvCopy, layout_.owner(island, segment), {}, atom});
    });
  }
  void divide(int firstPart, int endPart) {
    forEach(firstPart, endPart, [&](int, const Region& atom) { addOp(step_, Op{OpKind::Divide, -1, {}, atom}); });
  }
  void endStep() { pushIfAny(plan_, step_); }

 private:
  template <typename Visit>
  void forEach(int firstPart, int endPart, Visit visit) const {
    for (int segment = segments_.first; segment < segments_.second; ++segment)
      for (int part = firstPart; part < endPart; ++part) visit(segment, layout_.atom(kOutputBuffer, segment, part));
  }
  RankPlan& plan_;
  const AllReduceLayout& layout_;
  std::pair<int, int> segments_;
  Step step_;
};

class ShapeWriter {
 public:
  ShapeWriter(CostShape& shape, const AllReduceLayout& layout, std::pair<int, int> segments)
      : shape_(shape), layout_(layout), segments_(segments) {}
  void send(int, int firstPart, int endPart) { add(OpKind::Send, true, firstPart, endPart); }
  void receiveReduce(int, int firstPart, int endPart) { add(OpKind::RecvReduce, true, firstPart, endPart); }
  void receiveCopy(int, int firstPart, int endPart) { add(OpKind::RecvCopy, true, firstPart, endPart); }
  void divide(int firstPart, int endPart) { add(OpKind::Divide, false, firstPart, endPart); }
  void endStep() {
    shape_.addRun(ops_, 1, false);
    ops_.clear();
  }

 private:
  void add(OpKind kind, bool crossIsland, int firstPart, int endPart) {
    for (int segment = segments_.first; segment < segments_.second; ++segment)
      layout_.addAtomCosts(&ops_, kind, crossIsland, segment, firstPart, endPart);
  }
  CostShape& shape_;
  const AllReduceLayout& layout_;
  std::pair<int, int> segments_;
  std::vector<CostOp> ops_;
};

// The segments of `rank`'s shard.
std::pair<int, int> segmentsOf(const AllReduceLayout& layout, const TopologyView& topology, int rank) {
  return layout.segmentRangeOfShard(topology.islandOf[rank], topology.indexInIsland[rank]);
}

template <typename Writer>
void halvingDoubling(Writer& mine, const PlanRequest& request, const AllReduceLayout& layout, int J) {
  const int N = layout.islands(), P = layout.parts();
  if (J >= P) {  // folded: hand the partial to island J - P, take the result back
    mine.send(J - P, 0, P);
    mine.endStep();
    mine.receiveCopy(J - P, 0, P);
    mine.endStep();
    return;
  }
  const bool foldsIn = J + P < N;
  if (foldsIn) {
    mine.receiveReduce(J + P, 0, P);
    mine.endStep();
  }
  // Halving: the parts this owner is responsible for halve each round; it sends the other
  // half to the partner that keeps it, and folds the partner's partial of its own half in.
  int first = 0;
  for (int half = P / 2; half >= 1; half /= 2) {
    const int partner = J ^ half;
    const bool lower = J < first + half;
    const int keep = lower ? first : first + half, give = lower ? first + half : first;
    mine.send(partner, give, give + half);
    mine.receiveReduce(partner, keep, keep + half);
    mine.endStep();
    first = keep;
  }
  // Now part J is finished here, and only here.
  if (request.average) mine.divide(J, J + 1);
  mine.endStep();
  // Doubling: swap finished ranges of growing size with the same partners in reverse order.
  for (int size = 1; size < P; size *= 2) {
    const int partner = J ^ size;
    const int have = J & ~(size - 1), get = partner & ~(size - 1);
    mine.send(partner, have, have + size);
    mine.receiveCopy(partner, get, get + size);
    mine.endStep();
  }
  if (foldsIn) {
    mine.send(J + P, 0, P);
    mine.endStep();
  }
}

template <typename Writer>
void binomialTree(Writer& mine, const PlanRequest& request, const AllReduceLayout& layout, int J) {
  const int N = layout.islands();
  // Reduce: in round `bit`, an island whose lowest set bit is `bit` hands its subtree's
  // partial to island J - bit and is done; the others fold in J + bit's, when it exists.
  int parentBit = 0;
  for (int bit = 1; bit < N; bit *= 2) {
    if (J & bit) {
      mine.send(J - bit, 0, 1);
      mine.endStep();
      parentBit = bit;
      break;
    }
    if (J + bit < N) {
      mine.receiveReduce(J + bit, 0, 1);
      mine.endStep();
    }
  }
  if (J == 0 && request.average) {
    mine.divide(0, 1);
    mine.endStep();
  }
  // Broadcast down the same tree: the result comes from the parent, then goes to the
  // children, largest subtree first.
  if (J != 0) {
    mine.receiveCopy(J - parentBit, 0, 1);
    mine.endStep();
  }
  int top = 1;
  while (top < N) top *= 2;
  for (int bit = (J == 0 ? top : parentBit) / 2; bit >= 1; bit /= 2)
    if (J + bit < N) {
      mine.send(J + bit, 0, 1);
      mine.endStep();
    }
}

}  // namespace

void addHalvingDoublingAcrossIslands(RankPlan& plan, const PlanRequest& request, const AllReduceLayout& layout,
                                     const TopologyView& topology, int rank) {
  PlanWriter writer(plan, layout, segmentsOf(layout, topology, rank));
  halvingDoubling(writer, request, layout, topology.islandOf[rank]);
}

void addHalvingDoublingShape(CostShape& shape, const PlanRequest& request, const AllReduceLayout& layout,
                             const TopologyView& topology, int rank) {
  ShapeWriter writer(shape, layout, segmentsOf(layout, topology, rank));
  halvingDoubling(writer, request, layout, topology.islandOf[rank]);
}

void addTreeAcrossIslands(RankPlan& plan, const PlanRequest& request, const AllReduceLayout& layout,
                          const TopologyView& topology, int rank) {
  PlanWriter writer(plan, layout, segmentsOf(layout, topology, rank));
  binomialTree(writer, request, layout, topology.islandOf[rank]);
}

void addTreeShape(CostShape& shape, const PlanRequest& request, const AllReduceLayout& layout,
                  const TopologyView& topology, int rank) {
  ShapeWriter writer(shape, layout, segmentsOf(layout, topology, rank));
  binomialTree(writer, request, layout, topology.islandOf[rank]);
}

}  // namespace hetccl
