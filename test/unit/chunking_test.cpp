// Chunking (algorithms/chunking.h): a step whose every op moves elements is its own only chunk
// when one pipeline covers the phase, which is what lets the executor run such a step without
// slicing it (runtime/executor.cpp); a step with an empty op is not, and slicing drops the op.
#include <gtest/gtest.h>

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

TEST(Chunking, OnePipelineStepsWithEveryOpMovingAreTheirOwnChunk) {
  const TopologyView topology = TopologyView::fromIslandIds({0, 0, 1, 1});
  int whole = 0;
  for (Collective collective : {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather})
    for (Algorithm algorithm : allAlgorithms()) {
      if (!algorithmApplies(algorithm, collective, topology, nullptr)) continue;
      // 2 elements over 4 ranks leave some blocks empty; 1000 leave none.
      for (size_t count : {size_t{2}, size_t{1000}})
        for (int rank = 0; rank < 4; ++rank) {
          const PlanRequest request{collective, count, 4, 0, false, false, &topology};
          const RankPlan plan = buildPlan(algorithm, request, rank);
          std::vector<Op> chunk;
          for (const PlanPhase& phase : planPhases(plan)) {
            if (phase.island) continue;
            const size_t chunkElements = largestOpCount(plan, phase.firstStep, phase.endStep) + 1;
            ASSERT_LE(pipelineCount(plan, phase, chunkElements), 1u);
            for (size_t s = phase.firstStep; s < phase.endStep; ++s) {
              const Step& step = plan.steps[s];
              sliceStep(step, 0, chunkElements, &chunk);
              if (everyOpMovesElements(step)) {
                EXPECT_TRUE(sameOps(chunk, step.ops)) << algorithmName(algorithm) << " step " << s;
                ++whole;
              } else {
                EXPECT_LT(chunk.size(), step.ops.size()) << algorithmName(algorithm) << " step " << s;
              }
            }
          }
        }
    }
  EXPECT_GT(whole, 0);
}

TEST(Chunking, AStepWithAnEmptyOpIsNotWhole) {
  Step step;
  step.ops.push_back(Op{OpKind::Send, 1, Region{kInputBuffer, 0, 4}, Region{}});
  EXPECT_TRUE(everyOpMovesElements(step));
  step.ops.push_back(Op{OpKind::RecvCopy, 1, Region{}, Region{kOutputBuffer, 4, 0}});
  EXPECT_FALSE(everyOpMovesElements(step));
  // A send moves its source, every other op its destination.
  step.ops.back().dst.count = 3;
  EXPECT_TRUE(everyOpMovesElements(step));
}

}  // namespace
}  // namespace hetccl
