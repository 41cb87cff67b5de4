// Every island-aware algorithm on every collective it claims, for island layouts of 1..16
// ranks (equal, uneven, interleaved, one-rank islands, many islands), run by the symbolic
// verifier as written and cut into pipelines.
#include <gtest/gtest.h>

#include "algorithms/algorithm.h"
#include "algorithms/verifier.h"

namespace hetccl {
namespace {

// Island id of each rank, for the layouts worth testing at this rank count.
std::vector<std::vector<int>> layoutsFor(int p) {
  std::vector<std::vector<int>> layouts;
  layouts.push_back(std::vector<int>(p, 0));  // one island
  std::vector<int> halves, interleaved, singletons, threeWays, unevenTail;
  for (int r = 0; r < p; ++r) {
    halves.push_back(r < p / 2 ? 0 : 1);
    interleaved.push_back(r % 2);
    singletons.push_back(r);
    threeWays.push_back((r * 7) % 3);
    unevenTail.push_back(r == p - 1 ? 1 : 0);  // e.g. 3+1
  }
  layouts.push_back(halves);
  layouts.push_back(interleaved);
  layouts.push_back(singletons);
  layouts.push_back(threeWays);
  layouts.push_back(unevenTail);
  if (p == 8) layouts.push_back({0, 0, 0, 0, 0, 1, 1, 2});  // 5+2+1
  if (p == 4) layouts.push_back({0, 0, 1, 2});              // 2+1+1 as 1+1+2 reordered
  if (p == 6) layouts.push_back({0, 1, 0, 1, 0, 1});        // 3x2 torus, interleaved
  return layouts;
}

const size_t kCounts[] = {0, 1, 2, 5, 16, 37};

TEST(IslandPlans, EveryAlgorithmCollectiveAndLayoutVerifies) {
  const Collective collectives[] = {Collective::AllReduce, Collective::ReduceScatter, Collective::AllGather,
                                    Collective::Broadcast, Collective::Reduce,        Collective::AlltoAll};
  int verified = 0;
  for (int p = 1; p <= 16; ++p)
    for (const auto& ids : layoutsFor(p)) {
      TopologyView topology = TopologyView::fromIslandIds(ids);
      for (Algorithm algorithm : allAlgorithms())
        for (Collective collective : collectives) {
          if (!algorithmApplies(algorithm, collective, topology, nullptr)) continue;
          for (size_t count : kCounts)
            for (bool inPlace : {false, true})
              for (bool average : {false, true}) {
                bool reduces = collective == Collective::AllReduce || collective == Collective::ReduceScatter ||
                               collective == Collective::Reduce;
                if (average && !reduces) continue;
                for (int root : {0, p - 1}) {
                  if (root != 0 && collective != Collective::Broadcast && collective != Collective::Reduce) continue;
                  PlanRequest request{collective, count, p, root, inPlace, average, &topology};
                  auto builder = [algorithm](const PlanRequest& r, int rank) { return buildPlan(algorithm, r, rank); };
                  for (VerifyOptions mode :
                       {VerifyOptions{0, false}, VerifyOptions{2, false}, VerifyOptions{2, true}}) {
                    if (mode.chunkElements && p > 8 && count > 16) continue;  // slow; small p covers it
                    VerifyResult result = verifyPlan(request, builder, mode);
                    ASSERT_TRUE(result.ok)
                        << algorithmName(algorithm) << " " << collectiveName(collective) << " on "
                        << topology.describe() << " (p=" << p << ") count " << count << " root " << root
                        << (inPlace ? " in-place" : "") << (average ? " avg" : "") << " chunk " << mode.chunkElements
                        << (mode.reversePipelines ? " reversed" : "") << "\n"
                        << result.error;
                    ++verified;
                  }
                }
              }
        }
    }
  EXPECT_GT(verified, 10000);
}

TEST(IslandPlans, ApplicabilityIsExplained) {
  TopologyView uneven = TopologyView::fromIslandIds({0, 0, 0, 1});
  std::string reason;
  EXPECT_FALSE(algorithmApplies(Algorithm::Torus, Collective::AllReduce, uneven, &reason));
  EXPECT_NE(reason.find("equal"), std::string::npos) << reason;
  EXPECT_FALSE(algorithmApplies(Algorithm::Native, Collective::AllReduce, uneven, &reason));
  EXPECT_NE(reason.find("single-island"), std::string::npos) << reason;
  EXPECT_TRUE(algorithmApplies(Algorithm::Hierarchical, Collective::AllReduce, uneven, &reason));
  EXPECT_TRUE(algorithmApplies(Algorithm::Native, Collective::AllReduce, TopologyView::singleIsland(4), &reason));
}

// Only n/g elements per rank cross islands in the hierarchical all-reduce (the point of it):
// count what each rank sends to other islands.
TEST(IslandPlans, HierarchicalAllReduceSendsOnlyItsShardAcrossIslands) {
  TopologyView topology = TopologyView::fromIslandIds({0, 0, 0, 0, 1, 1, 1, 1});
  const size_t n = 800;
  PlanRequest request{Collective::AllReduce, n, 8, 0, false, false, &topology};
  for (Algorithm algorithm : {Algorithm::Hierarchical, Algorithm::Torus}) {
    for (int rank = 0; rank < 8; ++rank) {
      RankPlan plan = buildPlan(algorithm, request, rank);
      size_t crossing = 0;
      for (const Step& step : plan.steps)
        for (const Op& op : step.ops)
          if (op.kind == OpKind::Send && topology.islandOf[op.peer] != topology.islandOf[rank])
            crossing += op.src.count;
      // 2 islands: send half of the 200-element shard, then the finished half back.
      EXPECT_EQ(crossing, n / 4 / 2 * 2) << algorithmName(algorithm) << " rank " << rank;
    }
  }
}

}  // namespace
}  // namespace hetccl
