#include "algorithms/flat_plans.h"

#include <vector>

namespace hetccl {

namespace {

// Block `index` of `buffer` when `count` elements are split into `parts` blocks.
Region block(int buffer, size_t count, int parts, int index) {
  return Region{buffer, blockBegin(count, parts, index), blockCount(count, parts, index)};
}

// A one-op step copying `src` to `dst` (nothing when in place: the data is already there).
template <typename W>
void addLocalCopy(W& w, const PlanRequest& request, Region src, Region dst) {
  if (request.inPlace) return;
  w.add(Op{OpKind::Copy, -1, src, dst});
  w.endStep();
}

template <typename W>
void addDivide(W& w, const PlanRequest& request, Region region) {
  if (!request.average || request.nranks == 1) return;
  w.add(Op{OpKind::Divide, -1, {}, region});
  w.endStep();
}

// Ring reduce-scatter then ring all-gather over p nearly equal blocks.  In step s of the
// reduce-scatter, rank r passes block r-s to its right neighbour and folds block r-s-1 from
// its left one into its output; after p-1 steps it owns block r+1 fully reduced (and divided,
// for an average), which the all-gather then circulates.  A block's size changes only where
// the ring's block index wraps or enters the first n % p blocks (addRotationChanges), so the
// cost shape of the 2(p - 1) steps is a few runs.
template <typename W>
void ringAllReduce(W& w, const PlanRequest& request, int rank) {
  w.name("ring");
  const int p = request.nranks;
  const size_t n = request.count;
  if (p == 1) {
    addLocalCopy(w, request, Region{kInputBuffer, 0, n}, Region{kOutputBuffer, 0, n});
    return;
  }
  const int left = modRank(rank - 1, p), right = modRank(rank + 1, p);
  // Step s sends block `sendStart` - s and receives block `sendStart` - s - 1.
  auto changesFrom = [&](long sendStart) {
    return [=](std::vector<long>* changes) {
      addRotationChanges(sendStart, p, n, p - 1, changes);
      addRotationChanges(sendStart - 1, p, n, p - 1, changes);
    };
  };
  w.repeatSteps(p - 1, changesFrom(rank), [&](long s) {
    const int recvIndex = modRank(rank - s - 1, p);
    // The first step sends raw input; later steps forward what the previous step reduced.
    w.add(Op{OpKind::Send, right, block(s == 0 ? kInputBuffer : kOutputBuffer, n, p, modRank(rank - s, p)), {}});
    w.add(Op{OpKind::RecvReduce, left, block(kInputBuffer, n, p, recvIndex), block(kOutputBuffer, n, p, recvIndex)});
    w.endStep(true);
  });
  addDivide(w, request, block(kOutputBuffer, n, p, modRank(rank + 1, p)));
  w.repeatSteps(p - 1, changesFrom(rank + 1), [&](long s) {
    w.add(Op{OpKind::Send, right, block(kOutputBuffer, n, p, modRank(rank + 1 - s, p)), {}});
    w.add(Op{OpKind::RecvCopy, left, {}, block(kOutputBuffer, n, p, modRank(rank - s, p))});
    w.endStep(true);
  });
}

// Ring reduce-scatter over the p blocks of the input, shifted so that rank r ends with block
// r.  Partial sums travel through two alternating scratch blocks (one being sent while the
// other is received), and the last step reduces straight into the output.
template <typename W>
void ringReduceScatter(W& w, const PlanRequest& request, int rank) {
  w.name("ring");
  const int p = request.nranks;
  const size_t c = request.count;
  if (p == 1) {
    addLocalCopy(w, request, Region{kInputBuffer, 0, c}, Region{kOutputBuffer, 0, c});
    return;
  }
  if (p > 2) w.needScratch(2 * c);
  const int left = modRank(rank - 1, p), right = modRank(rank + 1, p);
  for (int s = 0; s < p - 1; ++s) {
    const int sendIndex = modRank(rank - 1 - s, p), recvIndex = modRank(rank - 2 - s, p);
    Region sendFrom = s == 0 ? fixedBlock(kInputBuffer, c, sendIndex) : fixedBlock(kScratchBuffer, c, (s - 1) % 2);
    Region reduceInto = s == p - 2 ? Region{kOutputBuffer, 0, c} : fixedBlock(kScratchBuffer, c, s % 2);
    w.add(Op{OpKind::Send, right, sendFrom, {}});
    w.add(Op{OpKind::RecvReduce, left, fixedBlock(kInputBuffer, c, recvIndex), reduceInto});
    w.endStep(true);
  }
  addDivide(w, request, Region{kOutputBuffer, 0, c});
}

// Ring all-gather: each rank forwards, in step s, the block it received in step s-1.
template <typename W>
void ringAllGather(W& w, const PlanRequest& request, int rank) {
  w.name("ring");
  const int p = request.nranks;
  const size_t c = request.count;
  const int left = modRank(rank - 1, p), right = modRank(rank + 1, p);
  if (!request.inPlace) w.add(Op{OpKind::Copy, -1, Region{kInputBuffer, 0, c}, fixedBlock(kOutputBuffer, c, rank)});
  if (p > 1) {
    w.add(Op{OpKind::Send, right, Region{kInputBuffer, 0, c}, {}});
    w.add(Op{OpKind::RecvCopy, left, {}, fixedBlock(kOutputBuffer, c, left)});
  }
  w.endStep();
  for (int s = 1; s < p - 1; ++s) {
    w.add(Op{OpKind::Send, right, fixedBlock(kOutputBuffer, c, modRank(rank - s, p)), {}});
    w.add(Op{OpKind::RecvCopy, left, {}, fixedBlock(kOutputBuffer, c, modRank(rank - s - 1, p))});
    w.endStep(true);
  }
}

// Chain root -> root+1 -> ... : every rank receives a chunk and passes it on; the executor's
// chunk pipeline keeps every link of the chain busy.  Rank `position` idles position - 1
// steps first, so that steps are hops and the cost model sees p - 1 of them.
template <typename W>
void chainBroadcast(W& w, const PlanRequest& request, int rank) {
  w.name("chain");
  const int p = request.nranks;
  const size_t n = request.count;
  const int position = modRank(rank - request.root, p);
  const int next = modRank(rank + 1, p), previous = modRank(rank - 1, p);
  const Region input{kInputBuffer, 0, n}, output{kOutputBuffer, 0, n};
  if (position == 0) {
    if (!request.inPlace) w.add(Op{OpKind::Copy, -1, input, output});
    if (p > 1) w.add(Op{OpKind::Send, next, input, {}});
    w.endStep();
    return;
  }
  idleSteps(w, position - 1);  // the chunk takes position - 1 hops to reach the previous rank
  w.add(Op{OpKind::RecvCopy, previous, {}, output});
  w.endStep();
  if (position < p - 1) {
    w.add(Op{OpKind::Send, next, output, {}});
    w.endStep();
  }
}

// Chain towards the root: the rank farthest from the root sends its input; every rank on the
// way folds in its own input and passes the partial result on.  Idle steps first, as in
// chainBroadcast.
template <typename W>
void chainReduce(W& w, const PlanRequest& request, int rank) {
  w.name("chain");
  const int p = request.nranks;
  const size_t n = request.count;
  const int position = modRank(rank - request.root, p);
  const int towardRoot = modRank(rank - 1, p), awayFromRoot = modRank(rank + 1, p);
  const Region input{kInputBuffer, 0, n}, output{kOutputBuffer, 0, n}, scratch{kScratchBuffer, 0, n};
  if (p == 1) {
    addLocalCopy(w, request, input, output);
    return;
  }
  if (position == p - 1) {
    w.add(Op{OpKind::Send, towardRoot, input, {}});
    w.endStep();
    return;
  }
  idleSteps(w, p - 2 - position);  // the partial takes that many hops to reach the next rank
  w.add(Op{OpKind::RecvReduce, awayFromRoot, input, position == 0 ? output : scratch});
  w.endStep();
  if (position == 0) {
    addDivide(w, request, output);
    return;
  }
  w.needScratch(n);
  w.add(Op{OpKind::Send, towardRoot, scratch, {}});
  w.endStep();
}

// Every rank posts its p-1 sends and receives at once and lets MPI schedule them.  In place,
// the input is first saved block by block into scratch (block-wise, so that the executor's
// chunk m of a send reads exactly what chunk m of the copy wrote).
template <typename W>
void directAlltoAll(W& w, const PlanRequest& request, int rank) {
  w.name("direct");
  const int p = request.nranks;
  const size_t c = request.count;
  int sendBuffer = kInputBuffer;
  if (request.inPlace && p > 1) {
    for (int peer = 0; peer < p; ++peer)
      if (peer != rank)
        w.add(Op{OpKind::Copy, -1, fixedBlock(kInputBuffer, c, peer), fixedBlock(kScratchBuffer, c, peer)});
    w.endStep();
    w.needScratch(c * p);
    sendBuffer = kScratchBuffer;
  }
  if (!request.inPlace)
    w.add(Op{OpKind::Copy, -1, fixedBlock(kInputBuffer, c, rank), fixedBlock(kOutputBuffer, c, rank)});
  for (int s = 1; s < p; ++s) {
    const int to = modRank(rank + s, p), from = modRank(rank - s, p);
    w.add(Op{OpKind::Send, to, fixedBlock(sendBuffer, c, to), {}});
    w.add(Op{OpKind::RecvCopy, from, {}, fixedBlock(kOutputBuffer, c, from)});
  }
  w.endStep();
}

template <typename W>
void ringSendRecv(W& w, const PlanRequest& request, int rank) {
  w.name("p2p");
  const int p = request.nranks;
  const size_t n = request.count;
  if (p == 1) {
    addLocalCopy(w, request, Region{kInputBuffer, 0, n}, Region{kOutputBuffer, 0, n});
    return;
  }
  int sendBuffer = kInputBuffer;
  if (request.inPlace) {
    // Sending and receiving the same buffer at once would race: save the input first.
    w.add(Op{OpKind::Copy, -1, Region{kInputBuffer, 0, n}, Region{kScratchBuffer, 0, n}});
    w.endStep();
    w.needScratch(n);
    sendBuffer = kScratchBuffer;
  }
  w.add(Op{OpKind::Send, modRank(rank + 1, p), Region{sendBuffer, 0, n}, {}});
  w.add(Op{OpKind::RecvCopy, modRank(rank - 1, p), {}, Region{kOutputBuffer, 0, n}});
  w.endStep();
}

template <typename W>
void writeFlat(W& w, const PlanRequest& request, int rank) {
  switch (request.collective) {
    case Collective::AllReduce: return ringAllReduce(w, request, rank);
    case Collective::ReduceScatter: return ringReduceScatter(w, request, rank);
    case Collective::AllGather: return ringAllGather(w, request, rank);
    case Collective::Broadcast: return chainBroadcast(w, request, rank);
    case Collective::Reduce: return chainReduce(w, request, rank);
    case Collective::AlltoAll: return directAlltoAll(w, request, rank);
    case Collective::SendRecv: return ringSendRecv(w, request, rank);
  }
}

struct FlatWrite {
  template <typename W>
  void operator()(W& w, const PlanRequest& request, const TopologyView&, int rank) const {
    writeFlat(w, request, rank);
  }
};

struct NativeWrite {
  template <typename W>
  void operator()(W& w, const PlanRequest& request, const TopologyView&, int rank) const {
    writeFlat(w, request, rank);
    w.name("native");
  }
};

}  // namespace

extern const AlgorithmWriter kRingWriter = writerOf<FlatWrite>();
extern const AlgorithmWriter kNativeWriter = writerOf<NativeWrite>();

RankPlan buildFlatPlan(const PlanRequest& request, int rank) { return planOf<FlatWrite>(request, rank); }

}  // namespace hetccl
