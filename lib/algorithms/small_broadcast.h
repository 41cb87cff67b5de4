// The latency-bound broadcast of row "small": a binomial tree, at most ceil(log2 p) hops from
// the root to any rank instead of the chain's p - 1.  Where ranks outnumber cores or links
// have a long latency, each hop is a wait for a rank to be scheduled or for a message's
// latency; the chain's pipeline pays them all before its last rank sees the first chunk.
//
// Ranks are numbered from the root (position v = rank - root mod p).  Rank v's parent is v
// with its lowest set bit 2^j cleared, so v is popcount(v) hops from the root; v receives the
// whole buffer, then sends it to its children v + 2^(j-1), ..., v + 1 (the root: every power
// of two below p), largest subtree first, in one step: the sends leave one after the other on
// its link, as a binomial tree's rounds would, but without the rank waiting to be scheduled
// again between them (4 ranks on 2 cores: 10 us instead of 17 at 512 B).  A rank idles
// popcount(v) - 1 steps first (idleSteps), so that the cost model sees the tree's depth.  The
// executor's chunk pipeline forwards chunk i down the tree while chunk i + 1 arrives, as the
// chain does.  The root sends its buffer up to ceil(log2 p) times, which is why the tuner
// keeps the chain for large buffers.
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
  const bool isRoot = position == 0;
  int childBit = 1;  // the lowest set bit of the position; the root's: the first power of two >= p
  while (childBit < p && (position & childBit) == 0) childBit *= 2;
  if (isRoot) {
    if (!request.inPlace) w.add(Op{OpKind::Copy, -1, input, output});
  } else {
    int hops = 0;
    for (int v = position; v != 0; v &= v - 1) ++hops;
    idleSteps(w, hops - 1);
    w.add(Op{OpKind::RecvCopy, modRank(position - childBit + request.root, p), {}, output});
    w.endStep();
  }
  for (childBit /= 2; childBit >= 1; childBit /= 2)
    if (position + childBit < p)
      w.add(Op{OpKind::Send, modRank(position + childBit + request.root, p), isRoot ? input : output, {}});
  w.endStep();
}

}  // namespace hetccl
