// The latency-bound all-reduce for small messages: recursive doubling.  With p a power of two,
// log2(p) rounds in which partners rank and rank ^ 2^k swap their whole partials and reduce,
// instead of the ring's 2(p-1) steps or a reduce-then-broadcast tree's 2 log2(p).  Otherwise
// the ranks above the largest power of two p2 first fold their input into rank - p2 and get
// the result back at the end: log2(p2) + 2 rounds.  Every rank reduces the same partials in
// the same grouping, and both partners compute op(lower ranks' partial, upper ranks' partial)
// (Op::receivedFirst on the upper one), so every rank holds identical bits: for
// floating-point sums, and for max/min, whose result on two NaNs depends on operand order.
#pragma once

#include "algorithms/algorithm_writer.h"

namespace hetccl {

// Row "small" (algorithm_list.h): this all-reduce, the all-gather of small_all_gather.h and the
// reduce-scatter of small_reduce_scatter.h.
extern const AlgorithmWriter kSmallWriter;
RankPlan buildRecursiveDoublingAllReduce(const PlanRequest& request, int rank);

}  // namespace hetccl
