// The latency-bound reduce-scatter of row "small" (recursive halving where p is a power of two,
// Bruck's all-gather reversed otherwise): the verifier
// proves it for 1..17 ranks in every in-place/average/chunking combination; it takes
// ceil(log2 p) rounds where the ring takes p - 1, with the ring's bytes; the tuner picks it for
// small buffers on 4 ranks; where p is a power of two its rounds (and the all-gather's) are
// one message each way and run whole.  And the chain broadcast's steps are hops, so the cost model sees
// its depth, while a large broadcast stays pipelined.
#include <gtest/gtest.h>

#include <algorithm>

#include "algorithms/algorithm.h"
#include "algorithms/cost_model.h"
#include "algorithms/tuner.h"
#include "algorithms/verifier.h"

namespace hetccl {
namespace {

int ceilLog2(int p) {
  int rounds = 0;
  while ((1 << rounds) < p) ++rounds;
  return rounds;
}

RankPlan smallPlan(const PlanRequest& request, int rank) { return buildPlan(Algorithm::Small, request, rank); }

// Steps that move data (a trailing Divide of an average is a step of its own).
size_t transferSteps(const RankPlan& plan) {
  size_t steps = 0;
  for (const Step& step : plan.steps)
    for (const Op& op : step.ops)
      if (op.kind == OpKind::Send || op.kind == OpKind::RecvCopy || op.kind == OpKind::RecvReduce) {
        ++steps;
        break;
      }
  return steps;
}

TEST(SmallCollectives, ReduceScatterVerifiesForEveryRankCountAndMode) {
  int verified = 0;
  for (int p = 1; p <= 17; ++p)
    for (size_t count : {0, 1, 3, 16})
      for (bool inPlace : {false, true})
        for (VerifyOptions mode : {VerifyOptions{0, false}, VerifyOptions{2, false}, VerifyOptions{1, true}})
          for (bool average : {false, true}) {
            const PlanRequest request{Collective::ReduceScatter, count, p, 0, inPlace, average};
            const VerifyResult result = verifyPlan(request, smallPlan, mode);
            ASSERT_TRUE(result.ok) << p << " ranks, " << count << " elements" << (inPlace ? " in-place" : "")
                                   << (average ? " avg" : "") << " chunk " << mode.chunkElements << "\n"
                                   << result.error;
            ++verified;
          }
  EXPECT_EQ(verified, 17 * 4 * 2 * 3 * 2);
}

// p a power of two (recursive halving): round k swaps 2^(R-1-k) blocks each way with rank ^
// 2^(R-1-k).  Otherwise Bruck reversed: round k goes to rank + 2^(R-1-k) and comes from
// rank - 2^(R-1-k), with min(d, p - d) blocks each way.  Either way (p - 1) blocks leave each
// rank in all, as on the ring.
TEST(SmallCollectives, ReduceScatterTakesCeilLog2RoundsAndRingBytes) {
  const size_t c = 5;
  for (int p = 2; p <= 17; ++p) {
    const PlanRequest request{Collective::ReduceScatter, c, p, 0, false, false};
    for (int rank = 0; rank < p; ++rank) {
      const RankPlan plan = smallPlan(request, rank);
      SCOPED_TRACE(describePlan(plan));
      EXPECT_EQ(plan.algorithm, "small");
      ASSERT_EQ(plan.steps.size(), static_cast<size_t>(ceilLog2(p)));
      size_t sent = 0;
      int distance = 1 << (ceilLog2(p) - 1);
      for (const Step& step : plan.steps) {
        const bool halving = (p & (p - 1)) == 0;
        const size_t blocks = static_cast<size_t>(std::min(distance, p - distance));
        size_t stepSent = 0, stepReceived = 0;
        for (const Op& op : step.ops) {
          if (op.kind == OpKind::Send) {
            EXPECT_EQ(op.peer, halving ? rank ^ distance : (rank + distance) % p);
            stepSent += op.src.count;
          } else {
            ASSERT_EQ(op.kind, OpKind::RecvReduce);
            EXPECT_EQ(op.peer, halving ? rank ^ distance : (rank - distance + p) % p);
            stepReceived += op.dst.count;
          }
        }
        EXPECT_EQ(stepSent, blocks * c);
        EXPECT_EQ(stepReceived, blocks * c);
        sent += stepSent;
        distance /= 2;
      }
      EXPECT_EQ(sent, static_cast<size_t>(p - 1) * c);
      EXPECT_EQ(plan.steps.back().ops.back().dst.buffer, kOutputBuffer);
    }
  }
}

// Where p is a power of two, each round of the all-gather and the reduce-scatter is one
// message each way with the round's partner, and the plan's ops run whole on every rank (its
// rounds send blocks the round before received as one region, which pipelines would cut at
// other offsets; without the flag the verifier and the loopback executor sweep fail).  Bruck's
// rounds keep one op per block, pipelined.
TEST(SmallCollectives, PowerOfTwoRoundsAreOneMessageEachWayAndRunWhole) {
  const size_t c = 3;
  for (Collective collective : {Collective::AllGather, Collective::ReduceScatter})
    for (int p = 2; p <= 17; ++p) {
      const bool powerOfTwo = (p & (p - 1)) == 0;
      const PlanRequest request{collective, c, p, 0, false, false};
      for (int rank = 0; rank < p; ++rank) {
        const RankPlan plan = smallPlan(request, rank);
        SCOPED_TRACE(describePlan(plan));
        EXPECT_EQ(plan.opsWhole, powerOfTwo);
        if (!powerOfTwo) continue;
        int group = collective == Collective::AllGather ? 1 : p / 2;
        for (const Step& step : plan.steps) {
          int sends = 0, receives = 0;
          for (const Op& op : step.ops) {
            if (op.kind == OpKind::Copy) continue;  // the all-gather's own block, out of place
            EXPECT_EQ(op.peer, rank ^ group);
            (op.kind == OpKind::Send ? sends : receives) += 1;
            EXPECT_EQ(op.kind == OpKind::Send ? op.src.count : op.dst.count, static_cast<size_t>(group) * c);
          }
          EXPECT_EQ(sends, 1);
          EXPECT_EQ(receives, 1);
          group = collective == Collective::AllGather ? group * 2 : group / 2;
        }
      }
    }
}

// The cost model prices a plan of whole ops as one pipeline, whatever chunk the query names:
// the executor runs it so.
TEST(SmallCollectives, WholeOpsArePricedAsOnePipeline) {
  const TopologyView topology = TopologyView::singleIsland(8);
  auto predicted = [&](Collective collective, size_t chunkBytes) {
    CostQuery query;
    query.algorithm = Algorithm::Small;
    query.request = PlanRequest{collective, size_t{64} << 10, 8, 0, false, false, &topology};
    query.chunkBytes = chunkBytes;
    return predictSeconds(query, CostParameters{});
  };
  for (Collective collective : {Collective::AllGather, Collective::ReduceScatter})
    EXPECT_DOUBLE_EQ(predicted(collective, 4096), predicted(collective, size_t{1} << 30));
  // A pipelined plan's price does depend on the chunk (the check above is not vacuous).
  EXPECT_NE(predicted(Collective::AllReduce, 4096), predicted(Collective::AllReduce, size_t{1} << 30));
}

// The chain's ranks idle until the data reaches them: the last receives in step p - 2.
TEST(SmallCollectives, ChainBroadcastStepsAreHops) {
  for (int p = 2; p <= 9; ++p) {
    const PlanRequest request{Collective::Broadcast, 3, p, 1, false, false};
    const RankPlan last = buildPlan(Algorithm::Ring, request, 0);  // position p - 1
    SCOPED_TRACE(describePlan(last));
    ASSERT_EQ(last.steps.size(), static_cast<size_t>(p - 1));
    EXPECT_EQ(last.steps.back().ops.at(0).kind, OpKind::RecvCopy);
    EXPECT_EQ(transferSteps(last), 1u);
  }
}

// The cost model sees the chain's hops: a small broadcast costs about p - 1 steps, also where
// ranks are sampled (over 64: the waits of sampled ranks are priced as their own steps), while
// a large one stays pipelined (a rank holds a pipeline for its own steps, not for the chain's).
TEST(SmallCollectives, ChainBroadcastPredictionCountsHopsAndStaysPipelined) {
  auto chain = [](int p, size_t bytes) {
    const TopologyView topology = TopologyView::singleIsland(p);
    CostQuery query;
    query.algorithm = Algorithm::Ring;
    query.request = PlanRequest{Collective::Broadcast, bytes / 4, p, 0, false, false, &topology};
    query.chunkBytes = size_t{1} << 20;
    return predictSeconds(query, CostParameters{});
  };
  const double hop = chain(2, 1024);
  for (int p : {8, 48, 200}) {
    EXPECT_NEAR(chain(p, 1024) / hop, p - 1, 0.05 * (p - 1)) << p << " ranks";
    // 256 pipelines of 1 MiB: the last rank starts p - 2 hops late, then keeps pace.
    const double large = chain(p, size_t{256} << 20), pace = chain(2, size_t{256} << 20);
    EXPECT_LT(large, pace + (p - 1) * 1.05 * chain(2, size_t{1} << 20)) << p << " ranks";
    EXPECT_GT(large, pace) << p << " ranks";
  }
}

// On 4 ranks the ring's 3 steps lose to 2 rounds for small buffers.  A small broadcast stays
// with the chain: row "small" has no broadcast (algorithm.h says why).
TEST(SmallCollectives, TunerPicksReduceScatterForSmallBuffersOnFourRanks) {
  const TopologyView topology = TopologyView::singleIsland(4);
  Tuner tuner(topology, CostParameters{}, TunerSettings{});
  for (size_t bytes : {size_t{64}, size_t{4} << 10}) {
    const PlanRequest reduceScatter{Collective::ReduceScatter, bytes / 16, 4, 0, false, false};
    EXPECT_EQ(tuner.choose(reduceScatter, 4).algorithm, Algorithm::Small) << bytes << " bytes";
    const PlanRequest broadcast{Collective::Broadcast, bytes / 4, 4, 1, false, false};
    EXPECT_EQ(tuner.choose(broadcast, 4).algorithm, Algorithm::Ring) << bytes << " bytes";
  }
  EXPECT_FALSE(algorithmApplies(Algorithm::Small, Collective::Broadcast, topology, nullptr));
}

}  // namespace
}  // namespace hetccl
