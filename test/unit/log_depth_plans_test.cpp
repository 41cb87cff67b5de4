// The log-depth cross-island all-reduces (hier-rhd, hier-tree, hier-dbtree) beyond the 1..16-rank layouts
// that island_plans_test.cpp verifies exhaustively: spot checks at a few hundred ranks (island
// counts that are and are not powers of two, equal and unequal islands), and their depth:
// the number of steps that cross islands grows with log2 of the island count.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "algorithms/algorithm.h"
#include "algorithms/verifier.h"
#include "island_layouts.h"

namespace hetccl {
namespace {

constexpr Algorithm kLogDepth[] = {Algorithm::HierarchicalHalving, Algorithm::HierarchicalTree,
                                   Algorithm::HierarchicalDoubleTree};

// The verifier's work grows with ranks x elements x contributions: a count a little above
// the rank count (every part of every segment non-empty, some one element longer) keeps
// the three layouts to a few seconds.
TEST(LogDepthPlans, VerifyAtAFewHundredRanks) {
  const TopologyView layouts[] = {islandsOf(96, 2), islandsOf(64, 3), islandsOf(37, 5, 3)};
  for (const TopologyView& topology : layouts)
    for (Algorithm algorithm : kLogDepth)
      for (bool average : {false, true}) {
        const size_t count = static_cast<size_t>(topology.nranks) + 7;
        PlanRequest request{Collective::AllReduce, count, topology.nranks, 0, average, average, &topology};
        auto builder = [algorithm](const PlanRequest& r, int rank) { return buildPlan(algorithm, r, rank); };
        for (VerifyOptions mode : {average ? VerifyOptions{2, true} : VerifyOptions{0, false}}) {
          VerifyResult result = verifyPlan(request, builder, mode);
          ASSERT_TRUE(result.ok) << algorithmName(algorithm) << " on " << topology.islandCount() << " islands ("
                                 << topology.nranks << " ranks)" << (average ? " avg" : "") << " chunk "
                                 << mode.chunkElements << "\n"
                                 << result.error;
        }
      }
}

// Steps of `rank`'s plan that send or receive across islands.
int crossIslandSteps(const TopologyView& topology, const RankPlan& plan, int rank) {
  int steps = 0;
  for (const Step& step : plan.steps) {
    bool crosses = false;
    for (const Op& op : step.ops)
      if (op.peer >= 0 && topology.islandOf[op.peer] != topology.islandOf[rank]) crosses = true;
    steps += crosses;
  }
  return steps;
}

// 96 islands: halving/doubling among 64 (6 rounds each way) plus the fold and its return;
// the binomial tree's deepest path is 7 rounds up and 7 down.  Direct exchange would post 95
// messages per round, the ring 190 rounds.
TEST(LogDepthPlans, CrossIslandRoundsGrowWithLog2OfTheIslands) {
  const TopologyView topology = islandsOf(96, 2);
  PlanRequest request{Collective::AllReduce, 100000, topology.nranks, 0, false, false, &topology};
  int deepest[2] = {0, 0};
  for (int rank = 0; rank < topology.nranks; ++rank)
    for (int a = 0; a < 2; ++a)
      deepest[a] = std::max(deepest[a], crossIslandSteps(topology, buildPlan(kLogDepth[a], request, rank), rank));
  EXPECT_EQ(deepest[0], 2 * 6 + 2);
  EXPECT_LE(deepest[1], 2 * 7);
}

// The double binary tree's plans are aligned in rounds (every rank has every step, empty where
// it idles): 2 steps per reduce round and 1 per broadcast round, floor(log2 96) = 6 rounds each
// way, each crossing islands on some rank.
TEST(LogDepthPlans, DoubleTreeRoundsAreAlignedAndLog2Deep) {
  const TopologyView topology = islandsOf(96, 2);
  PlanRequest request{Collective::AllReduce, 100000, topology.nranks, 0, false, false, &topology};
  std::set<size_t> crossing;
  const size_t steps = buildPlan(Algorithm::HierarchicalDoubleTree, request, 0).steps.size();
  for (int rank = 0; rank < topology.nranks; ++rank) {
    const RankPlan plan = buildPlan(Algorithm::HierarchicalDoubleTree, request, rank);
    ASSERT_EQ(plan.steps.size(), steps) << "rank " << rank;
    for (size_t s = 0; s < plan.steps.size(); ++s)
      for (const Op& op : plan.steps[s].ops)
        if (op.peer >= 0 && topology.islandOf[op.peer] != topology.islandOf[rank]) crossing.insert(s);
  }
  EXPECT_EQ(crossing.size(), 3u * 6);
}

}  // namespace
}  // namespace hetccl
