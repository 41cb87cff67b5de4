// Chunking (algorithms/chunking.h): a phase's shape from one walk over its ops.  A phase of
// one pipeline whose every op moves elements has steps that are their own only chunks, which
// lets the executor run them without slicing (runtime/executor.cpp); the pipeline count and the
// staging agree with what slicing gives.
#include <gtest/gtest.h>

#include <algorithm>

#include "algorithms/algorithm.h"
#include "algorithms/chunking.h"
#include "algorithms/topology_view.h"

namespace hetccl {
namespace {

bool sameRegion(const Region& a, const Region& b) {
  return a.buffer == b.buffer && a.offset == b.offset && a.count == b.count;
}

bool sameOps(const std::vector<Op>& a, const std::vector<Op>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].kind != b[i].kind || a[i].peer != b[i].peer || !sameRegion(a[i].src, b[i].src) ||
        !sameRegion(a[i].dst, b[i].dst) || a[i].receivedFirst != b[i].receivedFirst)
      return false;
  return true;
}

// The shape computed the long way: by slicing every pipeline of the phase.
PhaseShape shapeBySlicing(const RankPlan& plan, const PlanPhase& phase, size_t chunkElements) {
  PhaseShape shape;
  std::vector<Op> chunk;
  for (size_t pipeline = 0;; ++pipeline) {
    bool any = false;
    for (size_t s = phase.firstStep; s < phase.endStep; ++s) {
      sliceStep(plan.steps[s], pipeline, chunkElements, &chunk);
      if (chunk.empty()) continue;
      any = true;
      size_t staged = 0;
      for (const Op& op : chunk)
        if (op.kind == OpKind::RecvReduce) staged += op.dst.count;
      shape.stagedElements = std::max(shape.stagedElements, staged);
    }
    if (!any) break;
    shape.pipelines = pipeline + 1;
  }
  return shape;
}

TEST(Chunking, PhaseShapesAgreeWithSlicing) {
  const TopologyView topology = TopologyView::fromIslandIds({0, 0, 1, 1});
  int whole = 0, cut = 0;
  for (Collective collective : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather})
    for (Algorithm algorithm : allAlgorithms()) {
      if (!algorithmApplies(algorithm, collective, topology, nullptr)) continue;
      for (size_t count : {size_t{2}, size_t{1000}})
        for (int rank = 0; rank < 4; ++rank) {
          const PlanRequest request{collective, count, 4, 0, false, false, &topology};
          const RankPlan plan = buildPlan(algorithm, request, rank);
          for (const PlanPhase& phase : planPhases(plan)) {
            if (phase.island) continue;
            // Chunks of one element: as many pipelines as the largest op has elements.
            const size_t largest = phaseShape(plan, phase, 1).pipelines;
            for (size_t chunkElements : {largest + 1, std::max<size_t>(1, largest / 3)}) {
              const PhaseShape shape = phaseShape(plan, phase, chunkElements);
              const PhaseShape sliced = shapeBySlicing(plan, phase, chunkElements);
              EXPECT_EQ(shape.pipelines, sliced.pipelines) << algorithmName(algorithm);
              EXPECT_EQ(shape.stagedElements, sliced.stagedElements) << algorithmName(algorithm);
              if (!shape.stepsWhole) {
                cut += shape.pipelines > 1;
                continue;
              }
              ++whole;
              std::vector<Op> chunk;
              for (size_t s = phase.firstStep; s < phase.endStep; ++s) {
                sliceStep(plan.steps[s], 0, chunkElements, &chunk);
                EXPECT_TRUE(sameOps(chunk, plan.steps[s].ops)) << algorithmName(algorithm) << " step " << s;
              }
            }
          }
        }
    }
  EXPECT_GT(whole, 0);
  EXPECT_GT(cut, 0);
}

TEST(Chunking, APhaseWithAnEmptyOpOrSeveralPipelinesIsNotWhole) {
  RankPlan plan;
  plan.steps.resize(1);
  std::vector<Op>& ops = plan.steps[0].ops;
  ops.push_back(Op{OpKind::Send, 1, Region{kInputBuffer, 0, 4}, Region{}});
  const PlanPhase phase{0, 1, false};
  EXPECT_TRUE(phaseShape(plan, phase, 4).stepsWhole);
  EXPECT_FALSE(phaseShape(plan, phase, 3).stepsWhole);  // two pipelines
  ops.push_back(Op{OpKind::RecvReduce, 1, Region{kInputBuffer, 0, 4}, Region{kOutputBuffer, 4, 0}});
  EXPECT_FALSE(phaseShape(plan, phase, 4).stepsWhole);  // a receive of nothing
  // A send moves its source, every other op its destination.
  ops.back().dst.count = 3;
  EXPECT_TRUE(phaseShape(plan, phase, 4).stepsWhole);
  EXPECT_EQ(phaseShape(plan, phase, 4).stagedElements, 3u);
  EXPECT_EQ(phaseShape(plan, phase, 2).stagedElements, 2u);
}

}  // namespace
}  // namespace hetccl
