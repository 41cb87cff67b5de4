#include "algorithms/chunking.h"

#include <algorithm>

namespace hetccl {

Region chunkOf(const Region& region, size_t index, size_t chunkElements) {
  Region chunk = region;
  size_t begin = index * chunkElements;
  if (begin >= region.count) {
    chunk.count = 0;
    return chunk;
  }
  chunk.offset = region.offset + begin;
  chunk.count = std::min(chunkElements, region.count - begin);
  return chunk;
}

size_t pipelineCount(const RankPlan& plan, const PlanPhase& phase, size_t chunkElements) {
  return phaseShape(plan, phase, chunkElements).pipelines;
}

PlanPhase phaseAt(const RankPlan& plan, size_t firstStep) {
  PlanPhase phase{firstStep, firstStep + 1, isIslandStep(plan.steps[firstStep])};
  if (phase.island) return phase;
  while (phase.endStep < plan.steps.size() && !isIslandStep(plan.steps[phase.endStep]) &&
         !plan.steps[phase.endStep].startsPhase)
    ++phase.endStep;
  return phase;
}

std::vector<PlanPhase> planPhases(const RankPlan& plan) {
  std::vector<PlanPhase> phases;
  for (size_t s = 0; s < plan.steps.size(); s = phases.back().endStep) phases.push_back(phaseAt(plan, s));
  return phases;
}

namespace {
// The elements an op moves: a send's source, every other op's destination.
size_t elementsMoved(const Op& op) { return op.kind == OpKind::Send ? op.src.count : op.dst.count; }
}  // namespace

void sliceStep(const Step& step, size_t index, size_t chunkElements, std::vector<Op>* ops) {
  ops->clear();
  for (const Op& op : step.ops) {
    Op chunk = op;
    chunk.src = chunkOf(op.src, index, chunkElements);
    chunk.dst = chunkOf(op.dst, index, chunkElements);
    if (elementsMoved(chunk) > 0) ops->push_back(chunk);
  }
}

PhaseShape phaseShape(const RankPlan& plan, const PlanPhase& phase, size_t chunkElements) {
  size_t largest = 0;
  bool everyOpMoves = true;
  PhaseShape shape;
  for (size_t s = phase.firstStep; s < phase.endStep; ++s) {
    size_t staged = 0;
    for (const Op& op : plan.steps[s].ops) {
      largest = std::max({largest, op.src.count, op.dst.count});
      everyOpMoves = everyOpMoves && elementsMoved(op) > 0;
      if (op.kind == OpKind::RecvReduce) staged += std::min(op.dst.count, chunkElements);
    }
    shape.stagedElements = std::max(shape.stagedElements, staged);
  }
  shape.pipelines = (largest + chunkElements - 1) / chunkElements;
  shape.stepsWhole = shape.pipelines == 1 && everyOpMoves;
  return shape;
}

}  // namespace hetccl
