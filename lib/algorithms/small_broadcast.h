// The latency-bound broadcast of row "small": a binomial tree, ceil(log2 p) rounds from the
// root to the last rank instead of the chain's p - 1 hops.  Where ranks outnumber cores or
// links have a long latency, each hop is a wait for a rank to be scheduled or for a message's
// latency; the chain's pipeline pays them all before its last rank sees the first chunk.
//
// Ranks are numbered from the root (position v = rank - root mod p), R = ceil(log2 p).  Rank
// v's parent is v with its lowest set bit 2^j cleared; it receives the whole buffer in round
// R - 1 - j and sends it on to v + 2^(j-1), v + 2^(j-2), ..., v + 1 in the rounds after, one
// child a round (the root, j = R, from round 0).  Steps are rounds: a rank idles until its
// round comes (idleSteps), so that the cost model sees the tree's depth.  The executor's chunk
// pipeline forwards chunk i down the tree while chunk i + 1 arrives, as the chain does.  The
// root sends its buffer R times, which is why the tuner keeps the chain for large buffers.
#pragma once

#include "algorithms/plan.h"
#include "algorithms/plan_writer.h"

namespace hetccl {

template <typename W>
void binomialBroadcast(W& w, const PlanRequest& request, int rank) {
  w.name("small");
  const int p = request.nranks;
  const Region input{kInputBuffer, 0, request.count}, output{kOutputBuffer, 0, request.count};
  const int position = modRank(rank - request.root, p);
  int rounds = 0;  // R
  while ((1 << rounds) < p) ++rounds;
  int j = 0;  // the lowest set bit of the position is 2^j; the root's is 2^R
  while (j < rounds && (position & (1 << j)) == 0) ++j;
  const bool isRoot = position == 0;
  if (isRoot) {
    if (!request.inPlace) w.add(Op{OpKind::Copy, -1, input, output});
  } else {
    idleSteps(w, rounds - 1 - j);
    w.add(Op{OpKind::RecvCopy, modRank(position - (1 << j) + request.root, p), {}, output});
    w.endStep();
  }
  // Children beyond the last rank come first, if at all: their rounds stay as empty steps.
  for (int bit = j - 1; bit >= 0; --bit) {
    if (position + (1 << bit) < p)
      w.add(Op{OpKind::Send, modRank(position + (1 << bit) + request.root, p), isRoot ? input : output, {}});
    w.endStep(true);
  }
  if (rounds == 0) w.endStep();  // one rank: the copy alone
}

}  // namespace hetccl
