// The cost model's last pipeline: an op of 2.25 chunks is cut into two full chunks and a
// quarter one, and the model prices the quarter for what it carries.  It priced every pipeline
// as the first, full one, so 2.25 chunks cost as much as 3, and the tuner kept away from every
// chunk size that does not divide the blocks (an island slice's exchange took one whole chunk
// rather than several that pipeline its reduction: docs/PERFORMANCE.md).
#include <gtest/gtest.h>

#include "algorithms/cost_model.h"

namespace hetccl {
namespace {

constexpr size_t kChunkBytes = size_t{1} << 20;
constexpr size_t kChunkFloats = kChunkBytes / 4;

// Two ranks over a slow link: the bytes dominate, so a quarter chunk is visibly cheaper.
struct TwoRanks {
  TopologyView topology = TopologyView::fromIslandIds({0, 1});
  CostParameters parameters;
  TwoRanks() {
    parameters.intraIsland = LinkCost{20e-6, 1.0 / 0.125e9};
    parameters.interIsland = LinkCost{20e-6, 1.0 / 0.125e9};
  }
  // A flat ring's all-reduce of 2 x `blockFloats`: each step moves one block of half the data.
  CostQuery ringOf(size_t blockFloats, int depth) const {
    CostQuery q;
    q.algorithm = Algorithm::Ring;
    q.request = PlanRequest{Collective::AllReduce, 2 * blockFloats, 2, 0, false, false, &topology};
    q.chunkBytes = kChunkBytes;
    q.pipelineDepth = depth;
    return q;
  }
  double seconds(size_t blockFloats, int depth) const { return predictSeconds(ringOf(blockFloats, depth), parameters); }
};

// 2.25 chunks cost about a quarter chunk more than 2 and three quarters less than 3.
void expectAQuarterChunkCostsAQuarter(const TwoRanks& t, int depth) {
  const double two = t.seconds(2 * kChunkFloats, depth), three = t.seconds(3 * kChunkFloats, depth);
  const double twoAndAQuarter = t.seconds(2 * kChunkFloats + kChunkFloats / 4, depth);
  const double perChunk = three - two;
  ASSERT_GT(perChunk, 0);
  EXPECT_NEAR(twoAndAQuarter - two, perChunk / 4, perChunk / 8)
      << "depth " << depth << ": " << two << " " << twoAndAQuarter << " " << three;
}

// Throughput-bound (4 pipelines in flight): the last pipeline's own busiest resource, which the
// breakdown reports.
TEST(CostModelChunks, TheLastPipelineIsPricedForWhatItCarries) {
  const TwoRanks t;
  expectAQuarterChunkCostsAQuarter(t, 4);
  const CostBreakdown b = explainSeconds(t.ringOf(2 * kChunkFloats + kChunkFloats / 4, 4), t.parameters);
  EXPECT_EQ(b.pipelines, 3u);
  EXPECT_GT(b.lastBusiest, 0);
  EXPECT_LT(b.lastBusiest, b.busiest / 2);
  // Chunks that divide the block: the last pipeline is a full one.
  const CostBreakdown whole = explainSeconds(t.ringOf(3 * kChunkFloats, 4), t.parameters);
  EXPECT_DOUBLE_EQ(whole.lastBusiest, whole.busiest);
}

// Latency-bound (one pipeline in flight, W = the pipelines one after the other): the last
// round is the quarter pipeline's own latency.
TEST(CostModelChunks, TheLastRoundOfTheSlotsIsTheLastPipelinesLatency) {
  expectAQuarterChunkCostsAQuarter(TwoRanks{}, 1);
}

// Blocks smaller than a chunk are one pipeline, priced for the block as before.
TEST(CostModelChunks, OnePipelineIsTheBlockItself) {
  const TwoRanks t;
  const CostBreakdown b = explainSeconds(t.ringOf(kChunkFloats / 4, 4), t.parameters);
  EXPECT_EQ(b.pipelines, 1u);
  EXPECT_EQ(b.lastBusiest, 0);
  EXPECT_LT(t.seconds(kChunkFloats / 4, 4), t.seconds(kChunkFloats, 4));
}

}  // namespace
}  // namespace hetccl
