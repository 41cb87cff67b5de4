// How the executor pipelines a plan: every region is cut into chunks of at most
// `chunkElements`, and "pipeline m" runs all steps of the plan on chunk m of every region.
// Pipelines touch disjoint elements, so several run at once; within one, the plan's step
// order holds.  This is sound because a plan only ever hands data between regions of equal
// length and alignment (a block received in one step is the block sent in the next), so
// chunk m of one is chunk m of the other.  The verifier checks plans sliced this way too.
#pragma once

#include "algorithms/plan.h"

namespace hetccl {

// Island-collective steps (plan.h) are the exception: the vendor library's calls must come in
// the same order on every member of the island, which pipelines advancing at the network's
// pace would not keep.  A plan is therefore run as phases: runs of ordinary steps, each
// pipelined on its own, and island steps, each run whole, in plan order.  Pipeline m of one
// phase still touches chunk m of every region, so messages between a rank that has island
// steps and one that has none line up exactly as between two pipelined ranks.  Pipeline slots
// reuse their tags in every phase, so this relies on an invariant today's plans keep: all of
// a rank's messages to one peer lie in one pipelined phase (island plans send across islands
// only between their island steps; a plan cut into island slices starts a phase at each
// slice's cross-island steps on every rank: Step::startsPhase).  Two phases run at once only
// where a plan marks the second (Step::overlapsPrevious) and they use different halves of
// the tags (Step::tagHalf).
//
// Island steps run on the executor's island stream when it has one (runtime/executor.h): the
// steps after one go on while it runs, up to the first phase whose memory meets its own, which
// waits for it.  Their order on the island stream is the plan's, so every member still calls
// the vendor library in the same order.
struct PlanPhase {
  size_t firstStep = 0, endStep = 0;
  bool island = false;
};
std::vector<PlanPhase> planPhases(const RankPlan& plan);
// The phase that starts at step `firstStep` (< plan.steps.size()): planPhases one at a time.
PlanPhase phaseAt(const RankPlan& plan, size_t firstStep);

// Chunk `index` of `region` (count 0 when the region is shorter).
Region chunkOf(const Region& region, size_t index, size_t chunkElements);
// Number of pipelines needed for one ordinary phase of `plan`.
size_t pipelineCount(const RankPlan& plan, const PlanPhase& phase, size_t chunkElements);
// The ops of `step` restricted to chunk `index`; empty chunks are dropped (consistently on
// both ends of a transfer, which compute the same region lengths).
void sliceStep(const Step& step, size_t index, size_t chunkElements, std::vector<Op>* ops);

// What running an ordinary phase in chunks of `chunkElements` takes, from one walk over its
// ops (the executor's set-up for every run: walks of their own were a visible part of a small
// call's cost).
struct PhaseShape {
  size_t pipelines = 0;  // pipelineCount
  // What one pipeline's step receives to reduce: each RecvReduce's chunk, at most a chunk but
  // no more than its region (a round at thousands of islands receives thousands of small
  // parts); the largest over the phase's steps.
  size_t stagedElements = 0;
  // One pipeline, and every op has elements to move: each step is its own only chunk, which
  // sliceStep would only copy.
  bool stepsWhole = false;
};
PhaseShape phaseShape(const RankPlan& plan, const PlanPhase& phase, size_t chunkElements);

}  // namespace hetccl
