// Cross-island all-reduce among the owners of each segment (all_reduce_layout.h) in a number
// of rounds that grows with log2 of the island count, not with the count itself: at
// thousands of islands (one per node, as the library forms them by default) direct exchange
// and the ring do not scale.  Both keep owner-computes: every partial and every final element
// is reduced on exactly one rank and copied from there.
#pragma once

#include "algorithms/all_reduce_layout.h"
#include "algorithms/cost_shape.h"
#include "algorithms/plan_writer.h"

#include <set>

namespace hetccl {

enum class LogDepthMethod {
  // Rabenseifner across islands: recursive halving (reduce-scatter) then recursive doubling
  // (all-gather) among the owners in the first P islands, P the largest power of two <= N;
  // the owner in island P + i (i < N - P) first folds its segment into island i's owner and
  // gets the result back at the end.  The layout must cut segments into P parts; part v is
  // finished by island v's owner.  2 log2(P) rounds (+2 when N is not a power of two), each
  // owner sending about 2 n/g (+2 n/g for the folded pairs): bandwidth-optimal up to the fold.
  HalvingDoubling,
  // Binomial tree across islands: the owners reduce each segment onto island 0's owner, which
  // finishes it and broadcasts it back down the same tree.  The layout must leave segments
  // whole (one part).  2 ceil(log2 N) rounds of whole segments: for small and medium sizes,
  // where latency, not bandwidth, decides.
  BinomialTree,
  // Double binary tree across islands (as NCCL's trees, here among islands): each segment is
  // cut in two parts, part t reduced up tree t to its root and broadcast back down; an island
  // that forwards in one tree is a leaf of the other.  The layout must cut segments into 2
  // parts.  3 floor(log2 N) + 1 rounds; chunks pipeline through them, so large messages cross
  // at about n/g per rank, where the binomial tree's root receives log2 N segments.
  DoubleBinaryTree,
};

// Writes `rank`'s cross-island steps of `method` (plan_writer.h: instantiated for PlanWriter
// and ShapeWriter).  A round at thousands of islands holds thousands of parts, which the cost
// shape reads as two ops (the parts' two sizes).
template <typename W>
void writeLogDepthAcrossIslands(W& w, LogDepthMethod method, const PlanRequest& request, const AllReduceLayout& layout,
                                const TopologyView& topology, int rank);

// The islands whose double-tree roles the cost model must sample beyond its usual ones
// (AlgorithmWriter::addRoleIslands): each round of the double binary tree busies other
// islands (those of one height in either tree), and the leftmost path of both trees and its
// right children stand for every round.
void addDoubleTreeRoleIslands(int islandCount, std::set<int>* islands);

}  // namespace hetccl
