// All-reduce plans whose islands hand their collective steps to a vendor library (NCCL,
// RCCL): verified on symbolic data for every island layout, with every island, some, or one
// delegating, and the verifier's checks of island steps themselves.
#include <gtest/gtest.h>

#include "algorithms/algorithm.h"
#include "algorithms/chunking.h"
#include "algorithms/cost_model.h"
#include "algorithms/verifier.h"
#include "island_layouts.h"

namespace hetccl {
namespace {

// Which islands delegate: all, only the first, all but the first.
std::vector<std::vector<bool>> delegationsFor(int islands) {
  std::vector<bool> all(islands, true), first(islands, false), others(islands, true);
  first[0] = true;
  others[0] = false;
  return {all, first, others};
}

TEST(VendorIslandPlans, AllReduceVerifiesForEveryLayoutAndDelegation) {
  int verified = 0;
  for (int p = 1; p <= 12; ++p)
    for (const auto& ids : islandLayoutsFor(p))
      for (const std::vector<bool>& delegation : delegationsFor(TopologyView::fromIslandIds(ids).islandCount())) {
        TopologyView topology = TopologyView::fromIslandIds(ids);
        topology.islandLibrary = delegation;
        // The island-aware algorithms of the table: the others do not hand steps to islands.
        for (Algorithm algorithm : allAlgorithms()) {
          if (descriptorOf(algorithm).role != AlgorithmRole::IslandAware ||
              !algorithmApplies(algorithm, Collective::AllReduce, topology, nullptr))
            continue;
          for (size_t count : {0, 1, 2, 5, 16, 37})
            for (bool inPlace : {false, true})
              for (bool average : {false, true}) {
                PlanRequest request{Collective::AllReduce, count, p, 0, inPlace, average, &topology};
                auto builder = [algorithm](const PlanRequest& r, int rank) { return buildPlan(algorithm, r, rank); };
                for (VerifyOptions mode : {VerifyOptions{0, false}, VerifyOptions{3, false}, VerifyOptions{3, true}}) {
                  VerifyResult result = verifyPlan(request, builder, mode);
                  ASSERT_TRUE(result.ok) << algorithmName(algorithm) << " on " << topology.describe() << " (p=" << p
                                         << ") island 0 delegates " << delegation[0] << ", count " << count
                                         << (inPlace ? " in-place" : "") << (average ? " avg" : "") << " chunk "
                                         << mode.chunkElements << (mode.reversePipelines ? " reversed" : "") << "\n"
                                         << result.error;
                  ++verified;
                }
              }
        }
      }
  EXPECT_GT(verified, 3000);
}

// With every island delegating, no intra-island traffic is left to hetccl: a reduce-scatter
// step first, an all-gather step last, and only cross-island transfers between them.
TEST(VendorIslandPlans, BroadcastVerifiesForEveryLayoutRootAndDelegation) {
  int verified = 0;
  for (int p = 1; p <= 12; ++p)
    for (const auto& ids : islandLayoutsFor(p))
      for (const std::vector<bool>& delegation : delegationsFor(TopologyView::fromIslandIds(ids).islandCount())) {
        TopologyView topology = TopologyView::fromIslandIds(ids);
        topology.islandLibrary = delegation;
        for (int root : {0, p / 2, p - 1})
          for (size_t count : {0, 1, 5, 37})
            for (bool inPlace : {false, true}) {
              PlanRequest request{Collective::Broadcast, count, p, root, inPlace, false, &topology};
              auto builder = [](const PlanRequest& r, int rank) { return buildPlan(Algorithm::Hierarchical, r, rank); };
              for (VerifyOptions mode : {VerifyOptions{0, false}, VerifyOptions{3, true}}) {
                VerifyResult result = verifyPlan(request, builder, mode);
                ASSERT_TRUE(result.ok) << "broadcast on " << topology.describe() << " (p=" << p << ") root " << root
                                       << " island 0 delegates " << delegation[0] << ", count " << count
                                       << (inPlace ? " in-place" : "") << "\n"
                                       << result.error;
                ++verified;
              }
            }
      }
  EXPECT_GT(verified, 1000);
}

TEST(VendorIslandPlans, DelegatedIslandsLeaveOnlyCrossIslandTrafficToHetccl) {
  TopologyView topology = TopologyView::fromIslandIds({0, 0, 0, 1, 1, 1});
  topology.islandLibrary = {true, true};
  PlanRequest request{Collective::AllReduce, 100, 6, 0, false, false, &topology};
  for (int rank = 0; rank < 6; ++rank) {
    RankPlan plan = buildPlan(Algorithm::Hierarchical, request, rank);
    ASSERT_GE(plan.steps.size(), 3u);
    EXPECT_EQ(plan.steps.front().ops.front().kind, OpKind::IslandReduceScatter) << describePlan(plan);
    EXPECT_EQ(plan.steps.back().ops.front().kind, OpKind::IslandAllGather) << describePlan(plan);
    // 100 = 3 * 33 + 1: the element left over is reduced onto and broadcast from member 2.
    EXPECT_EQ(plan.steps.front().ops.size(), 2u);
    EXPECT_EQ(plan.steps.front().ops[1].peer, 2);
    for (size_t s = 1; s + 1 < plan.steps.size(); ++s)
      for (const Op& op : plan.steps[s].ops)
        if (op.peer >= 0) {
          EXPECT_NE(topology.islandOf[op.peer], topology.islandOf[rank]) << describePlan(plan);
        }
    std::vector<PlanPhase> phases = planPhases(plan);
    ASSERT_EQ(phases.size(), 3u);
    EXPECT_TRUE(phases[0].island && !phases[1].island && phases[2].island);
  }
}

// vendorIslandSteps = false (floating-point max/min) keeps hetccl's own island steps.
TEST(VendorIslandPlans, RequestCanKeepIslandStepsWithHetccl) {
  TopologyView topology = TopologyView::fromIslandIds({0, 0, 1, 1});
  topology.islandLibrary = {true, true};
  PlanRequest request{Collective::AllReduce, 100, 4, 0, false, false, &topology};
  request.vendorIslandSteps = false;
  for (int rank = 0; rank < 4; ++rank)
    for (const Step& step : buildPlan(Algorithm::Hierarchical, request, rank).steps) EXPECT_FALSE(isIslandStep(step));
  EXPECT_TRUE(verifyPlan(request, [](const PlanRequest& r, int rank) {
                return buildPlan(Algorithm::Hierarchical, r, rank);
              }).ok);
}

RankPlan twoRankIslandPlan(int rank, size_t scatterCount) {
  RankPlan plan;
  plan.rank = rank;
  plan.nranks = 2;
  Step step;
  step.ops.push_back(Op{OpKind::IslandReduceScatter, -1, Region{kInputBuffer, 0, 2 * scatterCount},
                        Region{kOutputBuffer, rank * scatterCount, scatterCount}});
  plan.steps.push_back(step);
  step.ops[0] = Op{OpKind::IslandAllGather, -1, Region{kOutputBuffer, rank * scatterCount, scatterCount},
                   Region{kOutputBuffer, 0, 2 * scatterCount}};
  plan.steps.push_back(step);
  return plan;
}

TEST(VendorIslandPlans, VerifierRunsIslandStepsAsCollectives) {
  PlanRequest request{Collective::AllReduce, 8, 2, 0, false, false, nullptr};
  EXPECT_TRUE(verifyPlan(request, [](const PlanRequest&, int rank) { return twoRankIslandPlan(rank, 4); }).ok);
}

TEST(VendorIslandPlans, VerifierRejectsMembersCallingDifferentCollectives) {
  PlanRequest request{Collective::AllReduce, 8, 2, 0, false, false, nullptr};
  VerifyResult result = verifyPlan(request, [](const PlanRequest&, int rank) {
    RankPlan plan = twoRankIslandPlan(rank, 4);
    if (rank == 1) plan.steps[0].ops[0].dst.count = 3;  // a different reduce-scatter size
    return plan;
  });
  ASSERT_FALSE(result.ok);
  EXPECT_NE(result.error.find("differs"), std::string::npos) << result.error;
}

TEST(VendorIslandPlans, VerifierRejectsAStepMixingIslandAndOtherOps) {
  PlanRequest request{Collective::AllReduce, 8, 2, 0, false, false, nullptr};
  VerifyResult result = verifyPlan(request, [](const PlanRequest&, int rank) {
    RankPlan plan = twoRankIslandPlan(rank, 4);
    plan.steps[1].ops.push_back(Op{OpKind::Copy, -1, Region{kInputBuffer, 0, 1}, Region{kScratchBuffer, 0, 1}});
    plan.scratchCount = 1;
    return plan;
  });
  ASSERT_FALSE(result.ok);
  EXPECT_NE(result.error.find("mixes"), std::string::npos) << result.error;
}

// NCCL's in-place reduce-scatter writes member i's block where it lies in the source; any other
// overlap of source and destination is undefined in a vendor library.
TEST(VendorIslandPlans, VerifierRejectsOverlapsThatAreNotTheVendorsInPlaceForm) {
  PlanRequest request{Collective::AllReduce, 8, 2, 0, true, false, nullptr};  // in place: one storage
  VerifyResult result = verifyPlan(request, [](const PlanRequest&, int rank) {
    RankPlan plan = twoRankIslandPlan(rank, 4);
    plan.steps[0].ops[0].src.buffer = kOutputBuffer;
    plan.steps[0].ops[0].dst.offset = (1 - rank) * 4;  // the other member's block
    return plan;
  });
  ASSERT_FALSE(result.ok);
  EXPECT_NE(result.error.find("other than in place"), std::string::npos) << result.error;
  EXPECT_TRUE(verifyPlan(request, [](const PlanRequest&, int rank) {
                RankPlan plan = twoRankIslandPlan(rank, 4);
                plan.steps[0].ops[0].src.buffer = kOutputBuffer;  // NCCL's in-place form
                return plan;
              }).ok);
}

TEST(VendorIslandPlans, VerifierRejectsAnIslandStepOnlySomeMembersReach) {
  PlanRequest request{Collective::AllReduce, 8, 2, 0, false, false, nullptr};
  VerifyResult result = verifyPlan(request, [](const PlanRequest&, int rank) {
    RankPlan plan = twoRankIslandPlan(rank, 4);
    if (rank == 1) plan.steps.pop_back();
    return plan;
  });
  ASSERT_FALSE(result.ok);
  EXPECT_NE(result.error.find("deadlock"), std::string::npos) << result.error;
}

// The cost model charges island steps once (they are not pipelined): a delegated island's
// prediction grows with the island's link cost and is not multiplied by the chunk count.
TEST(VendorIslandPlans, CostModelChargesIslandStepsOnce) {
  TopologyView topology = TopologyView::fromIslandIds({0, 0, 1, 1});
  topology.islandLibrary = {true, true};
  CostQuery query;
  query.algorithm = Algorithm::Hierarchical;
  query.request = PlanRequest{Collective::AllReduce, size_t{1} << 22, 4, 0, false, false, &topology};
  CostParameters fast, slowIslands;
  slowIslands.intraIsland.beta = fast.intraIsland.beta * 10;
  const double base = predictSeconds(query, fast), slower = predictSeconds(query, slowIslands);
  EXPECT_GT(slower, base);
  // 16 MiB: each member reduce-scatters 8 MiB blocks and gathers them back, one round each.
  const double islandBytes = 2.0 * (size_t{1} << 23);
  EXPECT_NEAR(slower - base, islandBytes * (slowIslands.intraIsland.beta - fast.intraIsland.beta), 1e-3 * slower);
}

}  // namespace
}  // namespace hetccl
