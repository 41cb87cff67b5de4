#include "algorithms/log_depth_cross_island.h"

#include <utility>
#include <vector>

namespace hetccl {

namespace {

// The steps below are made of ranges of parts, [firstPart, endPart), of every segment of
// this rank's shard, exchanged with that segment's owner in `island`.
template <typename W>
class OwnerExchange {
 public:
  OwnerExchange(W& w, const AllReduceLayout& layout, std::pair<int, int> segments)
      : w_(w), layout_(layout), segments_(segments) {}
  void send(int island, int firstPart, int endPart) {
    forEach(island, firstPart, endPart, [](int owner, const Region& atom) {
      return Op{OpKind::Send, owner, atom, {}};
    });
  }
  void receiveReduce(int island, int firstPart, int endPart) {
    forEach(island, firstPart, endPart, [](int owner, const Region& atom) {
      return Op{OpKind::RecvReduce, owner, atom, atom};
    });
  }
  void receiveCopy(int island, int firstPart, int endPart) {
    forEach(island, firstPart, endPart, [](int owner, const Region& atom) {
      return Op{OpKind::RecvCopy, owner, {}, atom};
    });
  }
  void divide(int firstPart, int endPart) {
    forEach(-1, firstPart, endPart, [](int, const Region& atom) { return Op{OpKind::Divide, -1, {}, atom}; });
  }
  // `keepEmpty`: a step with no op still takes its place (plans aligned in rounds).
  void endStep(bool keepEmpty = false) { w_.endStep(keepEmpty); }

 private:
  template <typename OpOf>
  void forEach(int island, int firstPart, int endPart, OpOf opOf) {
    for (int segment = segments_.first; segment < segments_.second; ++segment) {
      const int owner = island < 0 ? -1 : layout_.owner(island, segment);
      w_.addParts(layout_, kOutputBuffer, segment, firstPart, endPart,
                  [&](auto& to, const Region& atom, int) { to.add(opOf(owner, atom)); });
    }
  }
  W& w_;
  const AllReduceLayout& layout_;
  std::pair<int, int> segments_;
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

// The two trees of the double binary tree, in heap order: position p's children are 2p + 1
// and 2p + 2.  Tree 0 holds island p at position p; tree 1 holds island (p + ceil(N/2)) mod N,
// so tree 0's internal positions (p < floor(N/2)) hold tree 1's leaves: no island forwards
// for both trees (one, for odd N, is a leaf in both).
struct DoubleTree {
  int N;
  int islandAt(int tree, int position) const { return tree == 0 ? position : (position + (N + 1) / 2) % N; }
  int positionOf(int tree, int island) const { return tree == 0 ? island : modRank(island - (N + 1) / 2, N); }
  // Rounds from position p down to its deepest leaf: the largest d with (p + 1) 2^d <= N
  // (the leftmost path is the longest).
  int height(int position) const {
    int d = 0;
    while ((static_cast<long>(position) + 1) << (d + 1) <= N) ++d;
    return d;
  }
};

// Part t of every segment goes up tree t to its root, which finishes it, and back down.  Every
// rank's plan has the same rounds, so that each transfer's two ends sit in the same step: in
// reduce round r the nodes of height r fold in their first child's partial, then their
// second's (two steps: both write the same part), each child sending in the step its parent
// receives it; in broadcast round r (descending) the nodes of height r send to both children.
// The two trees share the rounds, so a step holds both trees' ops (tree 0's first, on both
// ends of a pair).  3 floor(log2 N) + 1 steps; an inner node of one tree moves its part three
// times (two in, one out, then one in, two out), and each part is half a segment, so chunks of
// large messages pipeline through the rounds at about n/g per rank across islands.
template <typename Writer>
void doubleBinaryTree(Writer& mine, const PlanRequest& request, const AllReduceLayout& layout, int J) {
  const DoubleTree trees{layout.islands()};
  const int N = trees.N, rounds = trees.height(0);
  for (int round = 1; round <= rounds; ++round)
    for (int child = 1; child <= 2; ++child) {
      for (int tree = 0; tree < 2; ++tree) {
        const int p = trees.positionOf(tree, J);
        if (trees.height(p) == round && 2 * p + child < N)
          mine.receiveReduce(trees.islandAt(tree, 2 * p + child), tree, tree + 1);
        const int parent = (p - 1) / 2, myIndex = p % 2 == 1 ? 1 : 2;
        if (p > 0 && myIndex == child && trees.height(parent) == round)
          mine.send(trees.islandAt(tree, parent), tree, tree + 1);
      }
      mine.endStep(true);
    }
  for (int tree = 0; tree < 2; ++tree)
    if (request.average && trees.positionOf(tree, J) == 0) mine.divide(tree, tree + 1);
  mine.endStep(true);
  for (int round = rounds; round >= 1; --round) {
    for (int tree = 0; tree < 2; ++tree) {
      const int p = trees.positionOf(tree, J);
      if (p > 0 && trees.height((p - 1) / 2) == round)
        mine.receiveCopy(trees.islandAt(tree, (p - 1) / 2), tree, tree + 1);
      if (trees.height(p) == round)
        for (int c = 2 * p + 1; c <= 2 * p + 2 && c < N; ++c) mine.send(trees.islandAt(tree, c), tree, tree + 1);
    }
    mine.endStep(true);
  }
}

}  // namespace

void addDoubleTreeRoleIslands(int islandCount, std::set<int>* islands) {
  const DoubleTree trees{islandCount};
  for (int leftmost = 0; leftmost < islandCount; leftmost = 2 * leftmost + 1)
    for (int position : {leftmost, leftmost + 1})
      if (position < islandCount) {
        islands->insert(trees.islandAt(0, position));
        islands->insert(trees.islandAt(1, position));
      }
}

template <typename W>
void writeLogDepthAcrossIslands(W& w, LogDepthMethod method, const PlanRequest& request, const AllReduceLayout& layout,
                                const TopologyView& topology, int rank) {
  OwnerExchange<W> mine(w, layout, segmentsOf(layout, topology, rank));
  const int island = topology.islandOf[rank];
  switch (method) {
    case LogDepthMethod::HalvingDoubling: halvingDoubling(mine, request, layout, island); break;
    case LogDepthMethod::BinomialTree: binomialTree(mine, request, layout, island); break;
    case LogDepthMethod::DoubleBinaryTree: doubleBinaryTree(mine, request, layout, island); break;
  }
}

template void writeLogDepthAcrossIslands(PlanWriter&, LogDepthMethod, const PlanRequest&, const AllReduceLayout&,
                                         const TopologyView&, int);
template void writeLogDepthAcrossIslands(ShapeWriter&, LogDepthMethod, const PlanRequest&, const AllReduceLayout&,
                                         const TopologyView&, int);

}  // namespace hetccl
