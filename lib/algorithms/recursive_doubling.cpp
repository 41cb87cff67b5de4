#include "algorithms/recursive_doubling.h"

#include "algorithms/small_all_gather.h"
#include "algorithms/small_reduce_scatter.h"

#include <algorithm>
#include <vector>

namespace hetccl {

namespace {

template <typename W>
void recursiveDoubling(W& w, const PlanRequest& request, int rank) {
  w.name("small");
  const int p = request.nranks;
  const size_t n = request.count;
  const Region input{kInputBuffer, 0, n}, output{kOutputBuffer, 0, n};
  // Two scratch regions, for the partials in flight while the output still holds the input.
  const Region scratch[2] = {{kScratchBuffer, 0, n}, {kScratchBuffer, n, n}};
  if (p == 1) {
    if (!request.inPlace) w.add(Op{OpKind::Copy, -1, input, output});
    w.endStep();
    return;
  }
  int p2 = 1;  // the largest power of two <= p
  while (2 * p2 <= p) p2 *= 2;
  const int folded = p - p2;  // ranks p2.. hand their input to rank - p2 and wait for the result
  if (rank >= p2) {
    w.add(Op{OpKind::Send, rank - p2, input, {}});
    w.endStep();
    w.add(Op{OpKind::RecvCopy, rank - p2, {}, output});
    w.endStep();
    return;
  }
  const bool foldsIn = rank < folded;
  int rounds = 0;
  while ((1 << rounds) < p2) ++rounds;

  // Where each round's result goes.  A round sends its partial while it receives into another
  // region (the send may still be reading when the reduction writes), and the last round
  // writes the output: so the rounds alternate between the output and scratch[0], backwards
  // from the last.
  enum Place { Input, Output, Scratch0, Scratch1 };
  auto regionOf = [&](Place place) {
    return place == Input ? input : place == Output ? output : scratch[place == Scratch0 ? 0 : 1];
  };
  size_t scratchRegions = 0;  // how many of `scratch` the plan writes
  auto writes = [&](Place place) {
    if (place == Scratch0) scratchRegions = std::max<size_t>(scratchRegions, 1);
    if (place == Scratch1) scratchRegions = 2;
  };
  std::vector<Place> into(rounds);
  for (int k = rounds - 1; k >= 0; --k) into[k] = (k == rounds - 1 || into[k + 1] != Output) ? Output : Scratch0;
  Place partial = Input;
  if (foldsIn) {
    // The fold reads the input and may write where the first round does not (also the
    // output in place: the reduction reads each element before writing it).
    partial = into[0] == Output ? Scratch0 : Output;
    writes(partial);
    w.add(Op{OpKind::RecvReduce, rank + p2, input, regionOf(partial)});  // mine (the lower rank's) first
    w.endStep();
  }
  // In place, the input is the output: a first round writing the output would overwrite what
  // it sends.  With more rounds it writes scratch[1] instead; a lone round receives into
  // scratch and reduces into the output once its send has completed.
  bool splitLoneRound = false;
  if (request.inPlace && partial == Input && into[0] == Output) {
    if (rounds > 1)
      into[0] = Scratch1;
    else
      splitLoneRound = true;
  }

  // Recursive doubling: in round k, ranks rank and rank ^ 2^k, which hold the partials of two
  // neighbouring blocks of 2^k ranks, swap them and both compute op(lower block's, upper
  // block's); every rank of a block holds identical bits, so after the last round every rank
  // does.
  for (int k = 0; k < rounds; ++k) {
    const int partner = rank ^ (1 << k);
    const bool upper = (rank >> k) & 1;  // the partner holds the lower block's partial
    const Region from = regionOf(partial);
    w.add(Op{OpKind::Send, partner, from, {}});
    if (splitLoneRound) {
      w.add(Op{OpKind::RecvCopy, partner, {}, scratch[0]});
      w.endStep();
      Op reduce{OpKind::Reduce, -1, scratch[0], output};
      reduce.receivedFirst = upper;
      w.add(reduce);
      writes(Scratch0);
      into[k] = Output;
    } else {
      Op exchange{OpKind::RecvReduce, partner, from, regionOf(into[k])};
      exchange.receivedFirst = upper;
      w.add(exchange);
    }
    w.endStep();
    writes(into[k]);
    partial = into[k];
  }
  w.needScratch(scratchRegions * n);

  // Every rank that holds the result divides its own copy (same bits: the same division of
  // the same value), before handing it to the rank it folded in.
  if (request.average) {
    w.add(Op{OpKind::Divide, -1, {}, output});
    w.endStep();
  }
  if (foldsIn) {
    w.add(Op{OpKind::Send, rank + p2, output, {}});
    w.endStep();
  }
}

struct RecursiveDoublingWrite {
  template <typename W>
  void operator()(W& w, const PlanRequest& request, const TopologyView&, int rank) const {
    switch (request.collective) {
      case Collective::AllGather: return smallAllGather(w, request, rank);
      case Collective::ReduceScatter: return smallReduceScatter(w, request, rank);
      default: return recursiveDoubling(w, request, rank);
    }
  }
};

}  // namespace

extern const AlgorithmWriter kSmallWriter = writerOf<RecursiveDoublingWrite>();

RankPlan buildRecursiveDoublingAllReduce(const PlanRequest& request, int rank) {
  return planOf<RecursiveDoublingWrite>(request, rank);
}

}  // namespace hetccl
