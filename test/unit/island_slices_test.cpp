// Island slices (algorithms/island_slices.h): the sliced all-reduce plans verified on symbolic
// data for every layout and delegation, their shape (island steps interleaved one slice ahead,
// a phase per slice on every rank), the cost model's timeline, and the tuner's use of it.
#include <gtest/gtest.h>

#include "algorithms/algorithm.h"
#include "algorithms/chunking.h"
#include "algorithms/cost_model.h"
#include "algorithms/island_slices.h"
#include "algorithms/tuner.h"
#include "algorithms/verifier.h"
#include "island_layouts.h"

namespace hetccl {
namespace {

std::vector<std::vector<bool>> delegationsFor(int islands) {
  std::vector<bool> all(islands, true), first(islands, false);
  first[0] = true;
  return {all, first};
}

TEST(IslandSlices, SlicedPlansVerifyForEveryLayoutAndDelegation) {
  int verified = 0;
  for (int p = 2; p <= 9; ++p)
    for (const auto& ids : islandLayoutsFor(p)) {
      TopologyView topology = TopologyView::fromIslandIds(ids);
      if (topology.islandCount() < 2) continue;
      for (const std::vector<bool>& delegation : delegationsFor(topology.islandCount())) {
        topology.islandLibrary = delegation;
        for (Algorithm algorithm : allAlgorithms()) {
          PlanRequest request{Collective::AllReduce, 0, p, 0, false, false, &topology};
          if (!algorithmApplies(algorithm, Collective::AllReduce, topology, nullptr) ||
              !slicesIslandSteps(algorithm, request))
            continue;
          for (size_t count : {size_t{1}, size_t{16}, size_t{37}, size_t{100}})
            for (int slices : {2, 3, 5})
              for (bool inPlace : {false, true}) {
                request.count = count;
                request.inPlace = inPlace;
                request.average = slices == 3;
                request.islandSlices = usableIslandSlices(request, slices);
                auto builder = [algorithm](const PlanRequest& r, int rank) { return buildPlan(algorithm, r, rank); };
                for (VerifyOptions mode : {VerifyOptions{0, false}, VerifyOptions{3, true}}) {
                  VerifyResult result = verifyPlan(request, builder, mode);
                  ASSERT_TRUE(result.ok) << algorithmName(algorithm) << " on " << topology.describe() << " (p=" << p
                                         << ") island 0 delegates " << delegation[0] << ", count " << count << ", "
                                         << request.islandSlices << " slices" << (inPlace ? " in-place" : "")
                                         << " chunk " << mode.chunkElements << "\n"
                                         << result.error;
                  ++verified;
                }
              }
        }
      }
    }
  EXPECT_GT(verified, 2000);
}

// Each exchange after the first may overlap the one before (the executor starts it while that
// one drains, on the other half of the tags), so consecutive exchanges keep to halves of the
// scratch; the verifier rejects a plan whose overlapping exchanges share it.
TEST(IslandSlices, OverlappingExchangesUseAlternateTagsAndScratch) {
  TopologyView topology = TopologyView::fromIslandIds({0, 0, 1, 1});
  topology.islandLibrary = {true, true};
  PlanRequest request{Collective::AllReduce, 4000, 4, 0, false, false, &topology};
  request.islandSlices = 4;
  size_t sliceScratch = 0;
  for (int rank = 0; rank < 4; ++rank) {
    const RankPlan plan = buildPlan(Algorithm::Hierarchical, request, rank);
    sliceScratch = plan.scratchCount / 2;
    int exchange = 0;
    for (const PlanPhase& phase : planPhases(plan)) {
      if (phase.island) continue;
      const Step& first = plan.steps[phase.firstStep];
      EXPECT_EQ(first.tagHalf, exchange % 2);
      EXPECT_EQ(first.overlapsPrevious, exchange > 0);
      for (size_t s = phase.firstStep; s < phase.endStep; ++s)
        for (const Op& op : plan.steps[s].ops)
          for (const Region& region : {op.src, op.dst})
            if (region.buffer == kScratchBuffer && region.count > 0) {
              EXPECT_GE(region.offset, (exchange % 2) * sliceScratch) << describePlan(plan);
              EXPECT_LE(region.offset + region.count, (exchange % 2 + 1) * sliceScratch) << describePlan(plan);
            }
      ++exchange;
    }
    EXPECT_EQ(exchange, 4);
  }
  ASSERT_GT(sliceScratch, 0u) << "the hierarchical exchange was expected to use scratch";
  auto builder = [](const PlanRequest& r, int rank) { return buildPlan(Algorithm::Hierarchical, r, rank); };
  EXPECT_TRUE(verifyPlan(request, builder).ok);
  auto sharedScratch = [&](const PlanRequest& r, int rank) {
    RankPlan plan = buildPlan(Algorithm::Hierarchical, r, rank);
    for (Step& step : plan.steps)
      for (Op& op : step.ops)
        for (Region* region : {&op.src, &op.dst})
          if (step.tagHalf == 1 && region->buffer == kScratchBuffer) region->offset -= sliceScratch;
    return plan;
  };
  const VerifyResult shared = verifyPlan(request, sharedScratch);
  EXPECT_FALSE(shared.ok);
  EXPECT_NE(shared.error.find("overlaps the one before"), std::string::npos) << shared.error;
}

// Island collectives are matched by the order their members call them in, so every member of an
// island must call the same ones in the same order -- also when slices are smaller than the
// ranks (the planner does not clamp them) and some rank has no share of the exchange.
TEST(IslandSlices, EveryIslandMemberCallsTheSameIslandStepsInOneOrder) {
  for (int p = 3; p <= 8; ++p)
    for (const auto& ids : islandLayoutsFor(p)) {
      TopologyView topology = TopologyView::fromIslandIds(ids);
      if (topology.islandCount() < 2) continue;
      topology.islandLibrary.assign(topology.islandCount(), true);
      for (Algorithm algorithm : allAlgorithms()) {
        PlanRequest request{Collective::AllReduce, 0, p, 0, false, false, &topology};
        if (!algorithmApplies(algorithm, Collective::AllReduce, topology, nullptr) ||
            !slicesIslandSteps(algorithm, request))
          continue;
        for (size_t count : {size_t{2}, size_t{5}, size_t{64}})
          for (int slices : {2, 3}) {
            request.count = count;
            request.islandSlices = slices;
            std::vector<std::string> orderOfIsland(topology.islandCount());
            std::vector<bool> seen(topology.islandCount(), false);
            for (int rank = 0; rank < p; ++rank) {
              std::string order;
              for (const Step& step : buildPlan(algorithm, request, rank).steps)
                if (isIslandStep(step))
                  order += std::to_string(static_cast<int>(step.ops.front().kind)) + ":" +
                           std::to_string(step.ops.front().src.count) + " ";
              const int island = topology.islandOf[rank];
              if (!seen[island]) orderOfIsland[island] = order;
              seen[island] = true;
              EXPECT_EQ(order, orderOfIsland[island])
                  << algorithmName(algorithm) << " on " << topology.describe() << ", count " << count << ", " << slices
                  << " slices, rank " << rank;
            }
          }
      }
    }
}

// 3 + 3, both islands delegating, 4 slices: the island stream is kept one slice ahead, and each
// slice's exchange is a phase of its own that touches only its slice.
TEST(IslandSlices, IslandStepsRunOneSliceAheadOfTheExchange) {
  TopologyView topology = TopologyView::fromIslandIds({0, 0, 0, 1, 1, 1});
  topology.islandLibrary = {true, true};
  PlanRequest request{Collective::AllReduce, 120, 6, 0, false, false, &topology};
  request.islandSlices = 4;
  for (int rank = 0; rank < 6; ++rank) {
    const RankPlan plan = buildPlan(Algorithm::Hierarchical, request, rank);
    std::string order;
    for (const PlanPhase& phase : planPhases(plan)) {
      if (!phase.island) {
        order += "X";
        continue;
      }
      const OpKind kind = plan.steps[phase.firstStep].ops.front().kind;
      order += kind == OpKind::IslandReduceScatter ? "R" : kind == OpKind::IslandAllGather ? "A" : "?";
    }
    EXPECT_EQ(order, "RRXARXARXAXA") << describePlan(plan);
    // Exchange r touches slice r of the output only, besides scratch: 12, 48, 48 and 12 elements
    // (the edge slices a quarter of the inner ones).
    int slice = -1;
    for (const PlanPhase& phase : planPhases(plan)) {
      if (phase.island) continue;
      ++slice;
      for (size_t s = phase.firstStep; s < phase.endStep; ++s)
        for (const Op& op : plan.steps[s].ops)
          for (const Region& region : {op.src, op.dst})
            if (region.count > 0 && region.buffer != kScratchBuffer) {
              EXPECT_GE(region.offset, sliceBegin(120, 4, slice)) << describePlan(plan);
              EXPECT_LE(region.offset + region.count, sliceBegin(120, 4, slice + 1)) << describePlan(plan);
            }
    }
    EXPECT_EQ(slice, 3);
  }
  EXPECT_EQ(sliceCount(120, 4, 0), 12u);
  EXPECT_EQ(sliceCount(120, 4, 1), 48u);
  EXPECT_EQ(sliceCount(120, 4, 3), 12u);
  EXPECT_EQ(sliceCount(120, 2, 1), 60u);
}

// A rank whose island has no library runs its own rings inside each slice's phase: as many
// phases as slices, so that chunk m of a phase means the same elements to it and its peers.
TEST(IslandSlices, RanksWithoutALibraryCutTheSamePhases) {
  TopologyView topology = TopologyView::fromIslandIds({0, 0, 1, 1});
  topology.islandLibrary = {true, false};
  PlanRequest request{Collective::AllReduce, 64, 4, 0, false, false, &topology};
  request.islandSlices = 3;
  for (int rank : {2, 3}) {
    const RankPlan plan = buildPlan(Algorithm::Hierarchical, request, rank);
    const std::vector<PlanPhase> phases = planPhases(plan);
    ASSERT_EQ(phases.size(), 3u) << describePlan(plan);
    for (const PlanPhase& phase : phases) EXPECT_FALSE(phase.island);
  }
  // No library anywhere: nothing to overlap, so the plan is never sliced.
  topology.islandLibrary = {false, false};
  EXPECT_FALSE(slicesIslandSteps(Algorithm::Hierarchical, request));
  EXPECT_EQ(planPhases(buildPlan(Algorithm::Hierarchical, request, 0)).size(), 1u);
}

TEST(IslandSlices, TimelineOverlapsIslandStepsWithTheExchange) {
  // One slice: nothing overlaps.
  EXPECT_DOUBLE_EQ(slicedTimeline({{1, 2, 1}}), 4);
  // Four slices of reduce-scatter 1, exchange 2, all-gather 1: the first reduce-scatter, four
  // exchanges back to back, the last all-gather (16 when run whole).
  EXPECT_DOUBLE_EQ(slicedTimeline(std::vector<SliceCost>(4, SliceCost{1, 2, 1})), 10);
  // Island-bound: the island stream never rests once started (8 steps of 3).
  EXPECT_DOUBLE_EQ(slicedTimeline(std::vector<SliceCost>(4, SliceCost{3, 1, 3})), 24);
  // Edge slices a quarter of the inner ones: exchange 1 waits for reduce-scatter 1 (ends at
  // 1.25), exchanges 1 and 2 run back to back (5.25), and the last inner all-gather (1) outlasts
  // the last exchange, before the last all-gather (0.25).
  EXPECT_DOUBLE_EQ(slicedTimeline({{0.25, 0.5, 0.25}, {1, 2, 1}, {1, 2, 1}, {0.25, 0.5, 0.25}}), 6.5);
  // Exchange-bound, each exchange starting 0.5 before the one before ends (its pipelines' fill
  // beside that one's drain): three boundaries save 1.5 of 0.25 + 4 x 2 + 0.25.
  EXPECT_DOUBLE_EQ(slicedTimeline(std::vector<SliceCost>(4, SliceCost{0.25, 2, 0.25, 0})), 8.5);
  EXPECT_DOUBLE_EQ(slicedTimeline(std::vector<SliceCost>(4, SliceCost{0.25, 2, 0.25, 0.5})), 7);
  // An exchange never starts before the one before it, nor before its reduce-scatter ends.
  EXPECT_DOUBLE_EQ(slicedTimeline(std::vector<SliceCost>(2, SliceCost{0.25, 1, 0.25, 5})), 1.75);
  EXPECT_DOUBLE_EQ(slicedTimeline({{1, 1, 0}, {3, 1, 0, 1}}), 5);
}

// With a fast island library and a slow cross-island link, slicing hides the island steps: the
// prediction drops below the whole plan's, and the tuner takes it; without a library it never
// slices.
TEST(IslandSlices, TunerSlicesLargeAllReducesOnDelegatedIslands) {
  TopologyView topology = TopologyView::fromIslandIds({0, 0, 0, 0, 1, 1, 1, 1});
  topology.islandLibrary = {true, true};
  CostParameters costs;
  costs.intraIsland = LinkCost{5e-6, 1.0 / 1e9};
  costs.interIsland = LinkCost{20e-6, 1.0 / 0.5e9};
  PlanRequest request{Collective::AllReduce, size_t{16} << 20, 8, 0, false, false, &topology};
  CostQuery whole{Algorithm::Hierarchical, request, 4, size_t{1} << 20, 4};
  CostQuery sliced = whole;
  sliced.request.islandSlices = 8;
  const CostBreakdown parts = explainSeconds(sliced, costs);
  EXPECT_EQ(parts.islandSlices, 8);
  EXPECT_LT(parts.total, 0.8 * predictSeconds(whole, costs));
  // It cannot beat the exchanges alone, each overlapping the one before by at most one
  // pipeline's fill.
  EXPECT_GT(parts.total, (parts.sliceExchange - (parts.latency - parts.busiest)) * 8);

  Tuner tuner(topology, costs, TunerSettings{});
  const TuningChoice choice = tuner.choose(request, 4);
  EXPECT_GT(choice.islandSlices, 1) << algorithmName(choice.algorithm);
  TunerSettings whole1;
  whole1.islandSlices = 1;
  Tuner unsliced(topology, costs, whole1);
  EXPECT_EQ(unsliced.choose(request, 4).islandSlices, 1);
  EXPECT_LT(choice.predictedSeconds, unsliced.choose(request, 4).predictedSeconds);

  topology.islandLibrary = {false, false};
  Tuner withoutLibrary(topology, costs, TunerSettings{});
  EXPECT_EQ(withoutLibrary.choose(request, 4).islandSlices, 1);
}

}  // namespace
}  // namespace hetccl
