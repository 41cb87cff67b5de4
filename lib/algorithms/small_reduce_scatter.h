// The latency-bound reduce-scatter of row "small": ceil(log2 p) rounds instead of the ring's
// p - 1, the same bytes ((p - 1) blocks sent per rank), for any p.  It is Bruck's all-gather
// (small_all_gather.h) run backwards, copies turned into reductions.
//
// Position j of a rank stands for block rank + j: its input's block at first, a partial sum in
// scratch block j once something has been reduced into it.  Rounds go by distance, from the
// largest power of two below p down to 1; in the round of distance d, with m = min(d, p - d),
// every rank sends positions d .. d + m - 1 to rank + d and reduces what rank - d sends into
// its positions 0 .. m - 1 (rank - d's position d + b is block rank + b, this rank's position
// b).  Each block's contributions meet along the tree Bruck's all-gather spreads it by, so
// after the last round position 0, written straight into the output, holds block rank summed
// over every rank exactly once.  Positions sent in a round are never the ones reduced into in
// it (m <= d).
//
// Every op moves one block: the executor cuts ops into chunks and runs chunk i of every op in
// one pipeline, so an op may only read what the ops before it wrote at the same offset within
// a block.
#pragma once

#include <algorithm>
#include <vector>

#include "algorithms/plan.h"

namespace hetccl {

template <typename W>
void bruckReduceScatter(W& w, const PlanRequest& request, int rank) {
  w.name("small");
  const int p = request.nranks;
  const size_t c = request.count;
  const Region output{kOutputBuffer, 0, c};
  if (p == 1) {
    if (!request.inPlace) w.add(Op{OpKind::Copy, -1, Region{kInputBuffer, 0, c}, output});
    w.endStep();
    return;
  }
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
  if (request.average) {
    w.add(Op{OpKind::Divide, -1, {}, output});
    w.endStep();
  }
}

}  // namespace hetccl
