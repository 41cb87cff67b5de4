#include "algorithms/tree_plans.h"

#include <algorithm>
#include <vector>

namespace hetccl {

RankPlan buildTreeAllReduce(const PlanRequest& request, int rank) {
  RankPlan plan = emptyPlan(request, rank, "small");
  const int p = request.nranks;
  const size_t n = request.count;
  const Region input{kInputBuffer, 0, n}, output{kOutputBuffer, 0, n};
  // Two scratch regions, for the partials in flight while the output still holds the input.
  const Region scratch[2] = {{kScratchBuffer, 0, n}, {kScratchBuffer, n, n}};
  Step step;
  if (p == 1) {
    if (!request.inPlace) addOp(step, Op{OpKind::Copy, -1, input, output});
    pushIfAny(plan, step);
    return plan;
  }
  int p2 = 1;  // the largest power of two <= p
  while (2 * p2 <= p) p2 *= 2;
  const int folded = p - p2;  // ranks p2.. hand their input to rank - p2 and wait for the result
  if (rank >= p2) {
    addOp(step, Op{OpKind::Send, rank - p2, input, {}});
    pushIfAny(plan, step);
    addOp(step, Op{OpKind::RecvCopy, rank - p2, {}, output});
    pushIfAny(plan, step);
    return plan;
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
    addOp(step, Op{OpKind::RecvReduce, rank + p2, input, regionOf(partial)});  // mine (the lower rank's) first
    pushIfAny(plan, step);
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
    addOp(step, Op{OpKind::Send, partner, from, {}});
    if (splitLoneRound) {
      addOp(step, Op{OpKind::RecvCopy, partner, {}, scratch[0]});
      pushIfAny(plan, step);
      Op reduce{OpKind::Reduce, -1, scratch[0], output};
      reduce.receivedFirst = upper;
      addOp(step, reduce);
      writes(Scratch0);
      into[k] = Output;
    } else {
      Op exchange{OpKind::RecvReduce, partner, from, regionOf(into[k])};
      exchange.receivedFirst = upper;
      addOp(step, exchange);
    }
    pushIfAny(plan, step);
    writes(into[k]);
    partial = into[k];
  }
  plan.scratchCount = scratchRegions * n;

  // Every rank that holds the result divides its own copy (same bits: the same division of
  // the same value), before handing it to the rank it folded in.
  if (request.average) {
    addOp(step, Op{OpKind::Divide, -1, {}, output});
    pushIfAny(plan, step);
  }
  if (foldsIn) {
    addOp(step, Op{OpKind::Send, rank + p2, output, {}});
    pushIfAny(plan, step);
  }
  return plan;
}

}  // namespace hetccl
