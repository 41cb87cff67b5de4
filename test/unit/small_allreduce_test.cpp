// The "small" all-reduce (recursive doubling, with the fold for rank counts that are not a
// power of two): the verifier proves it for 1..17 ranks in every in-place/average/chunking
// combination, including that every rank reduces in the same operand order; its plans have
// the rounds the algorithm promises; the cost model charges those rounds and the tuner picks
// it for small messages only.
#include <gtest/gtest.h>

#include <algorithm>

#include "algorithms/algorithm.h"
#include "algorithms/cost_model.h"
#include "algorithms/recursive_doubling.h"
#include "algorithms/tuner.h"
#include "algorithms/verifier.h"

namespace hetccl {
namespace {

int largestPowerOfTwoAtMost(int p) {
  int p2 = 1;
  while (2 * p2 <= p) p2 *= 2;
  return p2;
}

int log2Of(int p2) {
  int rounds = 0;
  while ((1 << rounds) < p2) ++rounds;
  return rounds;
}

TEST(SmallAllReduce, VerifiesForEveryRankCountInPlaceAverageAndChunking) {
  int verified = 0;
  for (int p = 1; p <= 17; ++p)
    for (size_t count : {0, 1, 2, 3, 5, 16, 37})
      for (bool inPlace : {false, true})
        for (bool average : {false, true}) {
          PlanRequest request{Collective::AllReduce, count, p, 0, inPlace, average};
          for (VerifyOptions mode :
               {VerifyOptions{0, false}, VerifyOptions{3, false}, VerifyOptions{3, true}, VerifyOptions{1, true}}) {
            VerifyResult result = verifyPlan(request, buildRecursiveDoublingAllReduce, mode);
            ASSERT_TRUE(result.ok) << "nranks " << p << " count " << count << (inPlace ? " in-place" : "")
                                   << (average ? " avg" : "") << " chunk " << mode.chunkElements
                                   << (mode.reversePipelines ? " reversed" : "") << "\n"
                                   << result.error;
            ++verified;
          }
        }
  EXPECT_EQ(verified, 17 * 7 * 2 * 2 * 4);
}

// log2(p) rounds for a power of two, each a swap of the whole buffer with rank ^ 2^k; two
// more (the fold in and the result back) otherwise.
TEST(SmallAllReduce, RoundsAreRecursiveDoublingWithTheFold) {
  const size_t n = 10;
  for (int p = 2; p <= 9; ++p) {
    const int p2 = largestPowerOfTwoAtMost(p), rounds = log2Of(p2);
    PlanRequest request{Collective::AllReduce, n, p, 0, false, false};
    size_t longest = 0;
    for (int rank = 0; rank < p; ++rank) {
      const RankPlan plan = buildRecursiveDoublingAllReduce(request, rank);
      SCOPED_TRACE(describePlan(plan));
      EXPECT_EQ(plan.algorithm, "small");
      longest = std::max(longest, plan.steps.size());
      if (rank >= p2) {  // folded: hand the input over, get the result back
        ASSERT_EQ(plan.steps.size(), 2u);
        EXPECT_EQ(plan.steps[0].ops[0].kind, OpKind::Send);
        EXPECT_EQ(plan.steps[1].ops[0].kind, OpKind::RecvCopy);
        EXPECT_EQ(plan.steps[1].ops[0].peer, rank - p2);
        continue;
      }
      const bool foldsIn = rank < p - p2;
      ASSERT_EQ(plan.steps.size(), static_cast<size_t>(rounds + (foldsIn ? 2 : 0)));
      const size_t first = foldsIn ? 1 : 0;
      if (foldsIn) {
        EXPECT_EQ(plan.steps[0].ops[0].kind, OpKind::RecvReduce);
        EXPECT_EQ(plan.steps[0].ops[0].peer, rank + p2);
        EXPECT_FALSE(plan.steps[0].ops[0].receivedFirst);  // the lower rank's input first
        EXPECT_EQ(plan.steps.back().ops[0].kind, OpKind::Send);
        EXPECT_EQ(plan.steps.back().ops[0].peer, rank + p2);
      }
      for (int k = 0; k < rounds; ++k) {
        const Step& step = plan.steps[first + k];
        ASSERT_EQ(step.ops.size(), 2u);
        const int partner = rank ^ (1 << k);
        EXPECT_EQ(step.ops[0].kind, OpKind::Send);
        EXPECT_EQ(step.ops[0].peer, partner);
        EXPECT_EQ(step.ops[0].src.count, n);
        EXPECT_EQ(step.ops[1].kind, OpKind::RecvReduce);
        EXPECT_EQ(step.ops[1].peer, partner);
        EXPECT_EQ(step.ops[1].dst.count, n);
        // The upper partner puts the lower one's partial first.
        EXPECT_EQ(step.ops[1].receivedFirst, partner < rank);
      }
      EXPECT_EQ(plan.steps[first + rounds - 1].ops[1].dst.buffer, kOutputBuffer);
    }
    EXPECT_EQ(longest, static_cast<size_t>(rounds + (p2 < p ? 2 : 0)));
  }
}

// A lone round in place (2 or 3 ranks) cannot reduce into the buffer it is sending from: it
// receives into scratch, then reduces into the output in operand order.
TEST(SmallAllReduce, TwoRanksInPlaceReceiveThenReduce) {
  PlanRequest request{Collective::AllReduce, 4, 2, 0, true, false};
  for (int rank = 0; rank < 2; ++rank) {
    const RankPlan plan = buildRecursiveDoublingAllReduce(request, rank);
    SCOPED_TRACE(describePlan(plan));
    ASSERT_EQ(plan.steps.size(), 2u);
    EXPECT_EQ(plan.steps[0].ops[1].kind, OpKind::RecvCopy);
    ASSERT_EQ(plan.steps[1].ops.size(), 1u);
    EXPECT_EQ(plan.steps[1].ops[0].kind, OpKind::Reduce);
    EXPECT_EQ(plan.steps[1].ops[0].receivedFirst, rank == 1);
    EXPECT_EQ(plan.scratchCount, 4u);
  }
  // Out of place it is one round.
  request.inPlace = false;
  EXPECT_EQ(buildRecursiveDoublingAllReduce(request, 1).steps.size(), 1u);
}

// Without the operand swap on the upper partners, every element holds the right
// contributions but ranks combine them in different orders: the verifier must say so.
TEST(SmallAllReduce, VerifierRejectsPartnersReducingInTheirOwnOrder) {
  for (int p : {2, 3, 4, 7}) {
    for (bool inPlace : {false, true}) {
      PlanRequest request{Collective::AllReduce, 5, p, 0, inPlace, false};
      auto ownOrder = [](const PlanRequest& r, int rank) {
        RankPlan plan = buildRecursiveDoublingAllReduce(r, rank);
        for (Step& step : plan.steps)
          for (Op& op : step.ops) op.receivedFirst = false;
        return plan;
      };
      VerifyResult result = verifyPlan(request, ownOrder);
      ASSERT_FALSE(result.ok) << p << " ranks";
      EXPECT_NE(result.error.find("another order"), std::string::npos) << result.error;
      EXPECT_TRUE(verifyPlan(request, buildRecursiveDoublingAllReduce).ok);
    }
  }
}

// What the cost model charges is the rounds: each one step of alpha + n beta on the link plus
// n gamma for the reduction (and the executor's per-step overhead); the fold adds a round
// with a reduction and a round without; an average one division.
TEST(SmallAllReduce, PredictionIsRoundsOfAlphaBetaGamma) {
  const CostParameters costs;
  const LinkCost& link = costs.intraIsland;
  for (int p = 2; p <= 9; ++p)
    for (size_t count : {size_t{2}, size_t{1000}})
      for (bool average : {false, true}) {
        const TopologyView topology = TopologyView::singleIsland(p);
        CostQuery query;
        query.algorithm = Algorithm::Small;
        query.request = PlanRequest{Collective::AllReduce, count, p, 0, false, average, &topology};
        query.elementSize = 4;
        query.chunkBytes = size_t{1} << 20;
        const int p2 = largestPowerOfTwoAtMost(p), rounds = log2Of(p2);
        const int fold = p2 < p ? 1 : 0;
        const double bytes = static_cast<double>(count * 4);
        const double transfer = costs.stepOverhead + link.alpha + bytes * link.beta;
        double expected = (rounds + 2 * fold) * transfer + (rounds + fold) * bytes * costs.gamma;
        if (average) expected += costs.stepOverhead + bytes * costs.copyBeta;
        EXPECT_NEAR(predictSeconds(query, costs), expected, expected * 1e-12)
            << p << " ranks, " << count << " elements" << (average ? ", avg" : "");
      }
}

TEST(SmallAllReduce, TunerPicksItForSmallMessagesOnly) {
  for (int p = 2; p <= 9; ++p) {
    std::vector<int> halves;
    for (int r = 0; r < p; ++r) halves.push_back(r < p / 2 ? 0 : 1);
    for (const TopologyView& topology : {TopologyView::singleIsland(p), TopologyView::fromIslandIds(halves)}) {
      Tuner tuner(topology, CostParameters{}, TunerSettings{});
      for (bool inPlace : {false, true})
        for (bool average : {false, true}) {
          // 8 bytes: two floats.  On 2 ranks one round beats the ring's two steps.
          const PlanRequest tiny{Collective::AllReduce, 2, p, 0, inPlace, average};
          EXPECT_EQ(tuner.choose(tiny, 4).algorithm, Algorithm::Small)
              << p << " ranks on " << topology.describe() << (inPlace ? " in-place" : "") << (average ? " avg" : "");
          // Large messages stay with the bandwidth-optimal plans.
          for (size_t bytes : {size_t{8} << 20, size_t{256} << 20}) {
            const PlanRequest large{Collective::AllReduce, bytes / 4, p, 0, inPlace, average};
            EXPECT_NE(tuner.choose(large, 4).algorithm, Algorithm::Small)
                << p << " ranks on " << topology.describe() << ", " << bytes << " bytes";
          }
        }
    }
  }
  // 2 ranks, 8 bytes: one round against the ring's two.
  const TopologyView two = TopologyView::singleIsland(2);
  CostQuery query;
  query.request = PlanRequest{Collective::AllReduce, 2, 2, 0, false, false, &two};
  query.algorithm = Algorithm::Small;
  const double small = predictSeconds(query, CostParameters{});
  query.algorithm = Algorithm::Ring;
  const double ring = predictSeconds(query, CostParameters{});
  EXPECT_LT(small, ring);
}

// Issue 12 found the per-size cache growing without bound (50,000 counts: 5 MB, calls 3x
// slower).  It stays within its capacity, and choices stay the same after it starts over.
TEST(Tuner, CacheIsBounded) {
  Tuner tuner(TopologyView::singleIsland(4), CostParameters{}, TunerSettings{});
  const PlanRequest first{Collective::AllReduce, 1, 4, 0, false, false};
  const Algorithm before = tuner.choose(first, 4).algorithm;
  for (size_t count = 1; count <= 5000; ++count) {
    tuner.choose(PlanRequest{Collective::AllReduce, count, 4, 0, false, false}, 4);
    ASSERT_LE(tuner.cachedChoices(), Tuner::kCacheCapacity);
  }
  EXPECT_EQ(tuner.choose(first, 4).algorithm, before);
}

}  // namespace
}  // namespace hetccl
