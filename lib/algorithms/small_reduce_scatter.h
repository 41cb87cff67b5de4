// The latency-bound reduce-scatter of row "small": ceil(log2 p) rounds instead of the ring's
// p - 1, the same bytes ((p - 1) blocks sent per rank), for any p.
//
// p a power of two (recursive halving, small_all_gather.h's recursive doubling run backwards):
// in the round of group g (p / 2 down to 1), ranks rank and partner = rank ^ g, which hold
// partial sums of the same 2g blocks, swap halves: each sends the partner's g blocks and
// reduces the partner's copy of its own g into scratch (the output in the last round), one
// message each way (the g blocks are adjacent).  Every round pairs two ranks that wait only
// for each other, and no round sends more messages than Open MPI's recursive halving: on the
// namespace cluster's 4 nodes, Bruck's order below with one message per block ran 0.75-0.8x
// Open MPI at 32 B-32 KiB (docs/PERFORMANCE.md).  A round's message spans blocks the round
// before reduced as one region but sends on in halves, so the plan's ops run whole
// (RankPlan::opsWhole).
//
// Otherwise (Bruck's all-gather run backwards, copies turned into reductions): position j of a
// rank stands for block rank + j: its input's block at first, a partial sum in scratch block j
// once something has been reduced into it.  Rounds go by distance, from the largest power of
// two below p down to 1; in the round of distance d, with m = min(d, p - d), every rank sends
// positions d .. d + m - 1 to rank + d and reduces what rank - d sends into its positions
// 0 .. m - 1 (rank - d's position d + b is block rank + b, this rank's position b).  Each
// block's contributions meet along the tree Bruck's all-gather spreads it by, so after the last
// round position 0, written straight into the output, holds block rank summed over every rank
// exactly once.  Positions sent in a round are never the ones reduced into in it (m <= d).
//
// Bruck's ops move one block each: the executor cuts ops into chunks and runs chunk i of every
// op in one pipeline, so an op may only read what the ops before it wrote at the same offset
// within a block.
#pragma once

#include <algorithm>
#include <vector>

#include "algorithms/plan.h"

namespace hetccl {

template <typename W>
void halvingReduceScatter(W& w, const PlanRequest& request, int rank) {
  const int p = request.nranks;
  const size_t c = request.count;
  w.opsWhole();
  // Block b's partial sum before the round of group g: the input's block in the first round;
  // after, where the round before (group 2g) reduced it: its i-th own block went to scratch
  // block 2g - 2 + i.  Each round's scratch blocks (g - 2 .. 2g - 3) are its own, so a round
  // never writes what it reads or sends.
  auto held = [&](int b, int g) {
    if (2 * g == p) return fixedBlock(kInputBuffer, c, b);
    return fixedBlock(kScratchBuffer, c, 2 * g - 2 + (b - rank / (2 * g) * (2 * g)));
  };
  for (int g = p / 2; g >= 1; g /= 2) {
    const int partner = rank ^ g;
    const int mine = rank / g * g, theirs = partner / g * g;
    // The g blocks each way are adjacent wherever they are held: one message each way.
    w.add(Op{OpKind::Send, partner, blocks(held(theirs, g), g), {}});
    const Region into = g == 1 ? Region{kOutputBuffer, 0, c} : blocks(fixedBlock(kScratchBuffer, c, g - 2), g);
    w.add(Op{OpKind::RecvReduce, partner, blocks(held(mine, g), g), into});
    w.endStep();
  }
  w.needScratch(p > 2 ? static_cast<size_t>(p - 2) * c : 0);
}

template <typename W>
void bruckReduceScatter(W& w, const PlanRequest& request, int rank) {
  const int p = request.nranks;
  const size_t c = request.count;
  const Region output{kOutputBuffer, 0, c};
  std::vector<bool> partial(p, false);  // position j holds a partial sum in scratch block j
  auto held = [&](int j) {
    return partial[j] ? fixedBlock(kScratchBuffer, c, j) : fixedBlock(kInputBuffer, c, modRank(rank + j, p));
  };
  int distance = 1;  // the largest power of two below p
  while (2 * distance < p) distance *= 2;
  int scratchBlocks = 0;
  for (; distance >= 1; distance /= 2) {
    const int m = std::min(distance, p - distance);
    for (int b = 0; b < m; ++b) w.add(Op{OpKind::Send, modRank(rank + distance, p), held(distance + b), {}});
    for (int b = 0; b < m; ++b) {
      const bool last = distance == 1;  // then m = 1: position 0's final sum
      const Region into = last ? output : fixedBlock(kScratchBuffer, c, b);
      w.add(Op{OpKind::RecvReduce, modRank(rank - distance, p), held(b), into});
      if (!last) {
        partial[b] = true;
        scratchBlocks = std::max(scratchBlocks, b + 1);
      }
    }
    w.endStep();
  }
  w.needScratch(static_cast<size_t>(scratchBlocks) * c);
}

template <typename W>
void smallReduceScatter(W& w, const PlanRequest& request, int rank) {
  w.name("small");
  const int p = request.nranks;
  const size_t c = request.count;
  const Region output{kOutputBuffer, 0, c};
  if (p == 1) {
    if (!request.inPlace) w.add(Op{OpKind::Copy, -1, Region{kInputBuffer, 0, c}, output});
    w.endStep();
    return;
  }
  if ((p & (p - 1)) == 0)
    halvingReduceScatter(w, request, rank);
  else
    bruckReduceScatter(w, request, rank);
  if (request.average) {
    w.add(Op{OpKind::Divide, -1, {}, output});
    w.endStep();
  }
}

}  // namespace hetccl
