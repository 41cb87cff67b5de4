// Island slices: how the hierarchical all-reduces overlap a vendor library's island steps with
// the cross-island phase.  hetccl's own island rings are ordinary steps, pipelined chunk by
// chunk with the exchange; a vendor library's reduce-scatter and all-gather are single calls
// that every island member must make in the same order, so they cannot ride the executor's
// pipelines (chunking.h).  Instead the buffer is cut into S contiguous slices, each all-reduced
// by the algorithm's own plan for that slice (island reduce-scatter, cross-island phase, island
// all-gather), and the slices are interleaved so that the island stream always has the next
// slice's reduce-scatter or the previous slice's all-gather to run while the network carries
// one slice's exchange:
//
//   RS0 RS1 | X0 | AG0 RS2 | X1 | AG1 RS3 | X2 | ... | X(S-1) | AG(S-1)
//
// (RS, AG: island steps on the island stream; X: a slice's cross-island steps, a pipelined
// phase of its own on every rank.)  Every rank cuts the same slices, so ranks of islands
// without a library run the same phases with their own island rings inside them, and chunk m of
// a phase is the same elements at both ends of each message.
//
// Consecutive exchanges overlap: X(r + 1) starts once every pipeline of X(r) has started, so
// its pipelines fill while X(r)'s drain, and AG(r) and RS(r + 2) are queued when X(r) ends
// (Step::overlapsPrevious; the executor, runtime/executor.cpp).  Without it each boundary left
// the network idle for a pipeline's fill and drain (1.2-1.4 ms each on the emulated islands of
// docs/PERFORMANCE.md).  The exchanges therefore alternate halves of the run's tags and of the
// scratch.  The verifier proves the sliced plan as it proves any (it is one plan), and that
// overlapping exchanges and the island steps between touch nothing in common that one of them
// writes; the cost model prices it as a timeline of the slices' parts (cost_model.cpp).
#pragma once

#include "algorithms/algorithm_names.h"
#include "algorithms/plan.h"

namespace hetccl {

// The most slices a plan is cut into (the tuner tries 1, 2, 4 ... up to this).
constexpr int kMaxIslandSlices = 16;

// Whether `algorithm`'s plan for `request` can be cut into island slices: an island-aware
// all-reduce on several islands, at least one of which hands its steps to a vendor library.
bool slicesIslandSteps(Algorithm algorithm, const PlanRequest& request);
// How many slices `request` can really have (each slice needs elements for every rank).
int usableIslandSlices(const PlanRequest& request, int wanted);
// Where slice `index` of `count` elements cut into `slices` begins (index == slices: count),
// and its length.  The first and last slice are a quarter of the others (their island steps
// are the ones nothing overlaps).
size_t sliceBegin(size_t count, int slices, int index);
size_t sliceCount(size_t count, int slices, int index);
// The request of slice `index` alone (unsliced, its own count): slice 0 is an edge slice, 1 an
// inner one (when there are more than two).
PlanRequest sliceRequest(const PlanRequest& request, int index);

// The plan of `rank` with request.islandSlices slices of `algorithm`'s plan, interleaved as above.
RankPlan buildSlicedPlan(Algorithm algorithm, const PlanRequest& request, int rank);

}  // namespace hetccl
