// fp32 accumulation (HETCCL_ACCUMULATE=float32) of a float16 or bfloat16 sum or average, as the
// plans it runs.  The caller widens the input into a float32 buffer, and then:
//   - an all-reduce whose algorithm is built of reduce-scatter and all-gather plans (ring,
//     hier) runs split: a float32 reduce-scatter of equal blocks (the buffer padded to a
//     multiple of the rank count), each rank rounds the block it owns once into the narrow
//     type, and a narrow all-gather of those blocks gives every rank the same bits.  1.5x the
//     native bytes.
//   - an all-reduce with any other algorithm (torus, hier-rhd, hier-tree, hier-dbtree, small)
//     runs whole in float32, then every rank rounds the float32 result, which every rank holds
//     with the same bits: 2x the native bytes.
//   - a reduce-scatter is a float32 reduce-scatter, then each rank rounds its own block.
// Whichever way, the result is the float32 sum (or average) rounded once: its error does not
// grow with the rank count.  The tuner prices the phases (Tuner::chooseAccumulated).
#pragma once

#include "algorithms/algorithm.h"

namespace hetccl {

// Whether `request` (a float16/bfloat16 call's) is one fp32 accumulation applies to: an
// all-reduce or a reduce-scatter (sum or average; the caller checks type and op).
bool accumulates(Collective collective);

// Whether `algorithm` runs an accumulated all-reduce split (reduce-scatter + all-gather).
bool splitsAccumulation(Algorithm algorithm, const TopologyView& topology);

// Each rank's block q of the float32 reduce-scatter: ceil(count / nranks) for an all-reduce of
// `count`, the call's own count for a reduce-scatter.  The widened buffer holds q * nranks.
size_t accumulationBlock(const PlanRequest& request);
size_t accumulationBufferCount(const PlanRequest& request, bool split);

// The float32 phase: an in-place reduce-scatter of accumulationBlock() per rank (split, or a
// reduce-scatter call), or an in-place all-reduce of the call's count; average as the call.
PlanRequest accumulationReduceRequest(const PlanRequest& request, bool split);
// The narrow phase of a split all-reduce: an in-place all-gather of accumulationBlock().
PlanRequest accumulationGatherRequest(const PlanRequest& request);

}  // namespace hetccl
