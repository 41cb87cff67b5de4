// The latency-bound all-gather of row "small": ceil(log2 p) rounds instead of the ring's p - 1,
// the same bytes.  Where ranks outnumber cores or links have a long latency, each step the
// ring saves is a wait for a peer to be scheduled or for a message's latency.
//
// p a power of two (recursive doubling): in round k, ranks rank and rank ^ 2^k swap the 2^k
// blocks each has gathered, straight into the output, as one message each way (the blocks are
// adjacent): on the namespace cluster's links one message per block cost about 20 us a call
// on 4 nodes, 0.8x Open MPI where one message runs level with it (docs/PERFORMANCE.md).  A
// round's message spans blocks the rounds before received as smaller regions, so the ops run
// whole (RankPlan::opsWhole); this all-gather is for sizes where a pipeline would not help.
//
// Otherwise (Bruck's all-gather): scratch holds, at position j, the block of rank + j; in round
// k every rank sends its first min(2^k, p - 2^k) positions to rank - 2^k and receives as many
// from rank + 2^k after its first 2^k; at the end scratch is rotated into the output.
//
// Bruck's ops move one block each, as the ring's do: the executor cuts each op into chunks and
// runs chunk i of every op in one pipeline, so an op may only read what the ops before it
// wrote at the same offset within a block.
#pragma once

#include <algorithm>

#include "algorithms/plan.h"

namespace hetccl {

template <typename W>
void doublingAllGather(W& w, const PlanRequest& request, int rank) {
  const int p = request.nranks;
  const size_t c = request.count;
  w.opsWhole();
  const Region input{kInputBuffer, 0, c};
  if (!request.inPlace) w.add(Op{OpKind::Copy, -1, input, fixedBlock(kOutputBuffer, c, rank)});
  for (int group = 1; group < p; group *= 2) {
    const int partner = rank ^ group;
    const int mine = rank / group * group, theirs = partner / group * group;
    // The first round sends the input itself, so it need not wait for the copy beside it.
    const Region send = group == 1 ? input : blocks(fixedBlock(kOutputBuffer, c, mine), group);
    w.add(Op{OpKind::Send, partner, send, {}});
    w.add(Op{OpKind::RecvCopy, partner, {}, blocks(fixedBlock(kOutputBuffer, c, theirs), group)});
    w.endStep();
  }
  if (p == 1) w.endStep();
}

template <typename W>
void bruckAllGather(W& w, const PlanRequest& request, int rank) {
  const int p = request.nranks;
  const size_t c = request.count;
  w.needScratch(static_cast<size_t>(p) * c);
  w.add(Op{OpKind::Copy, -1, Region{kInputBuffer, 0, c}, fixedBlock(kScratchBuffer, c, 0)});
  w.endStep();
  for (int have = 1; have < p; have *= 2) {
    for (int b = 0; b < std::min(have, p - have); ++b) {
      w.add(Op{OpKind::Send, modRank(rank - have, p), fixedBlock(kScratchBuffer, c, b), {}});
      w.add(Op{OpKind::RecvCopy, modRank(rank + have, p), {}, fixedBlock(kScratchBuffer, c, have + b)});
    }
    w.endStep();
  }
  // Position j holds the block of rank + j.  In place, block `rank` is the input, already there.
  for (int j = request.inPlace ? 1 : 0; j < p; ++j)
    w.add(Op{OpKind::Copy, -1, fixedBlock(kScratchBuffer, c, j), fixedBlock(kOutputBuffer, c, modRank(rank + j, p))});
  w.endStep();
}

template <typename W>
void smallAllGather(W& w, const PlanRequest& request, int rank) {
  w.name("small");
  const int p = request.nranks;
  if ((p & (p - 1)) == 0)
    doublingAllGather(w, request, rank);
  else
    bruckAllGather(w, request, rank);
}

}  // namespace hetccl
