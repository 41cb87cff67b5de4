// The "small" all-reduce (recursive doubling) run by the real executor, one thread per rank
// over the loopback transport, on 1 to 9 ranks: every rank must end with the same bits, and
// those bits must be the recursive-doubling expression op(lower half's, upper half's)
// evaluated directly, for float sums of values whose grouping changes the rounding and for
// max/min over signed zeros and NaNs with distinct payloads (where op(a, b) and op(b, a)
// differ in which NaN survives).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "algorithms/recursive_doubling.h"
#include "base/element.h"
#include "device/host/host_reduce.h"
#include "thread_ranks.h"

namespace hetccl {
namespace {

uint32_t bitsOf(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof bits);
  return bits;
}
float floatOf(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
// A quiet NaN whose payload names where it came from.
float nanWithPayload(uint32_t payload) { return floatOf(0x7fc00000u | (payload & 0x3fffffu)); }

// Inputs[rank][i]: for sums, values over many magnitudes and both signs (so that (a+b)+c and
// a+(b+c) round differently).  For max/min, by element: +0, -0 and a few numbers (i % 3 ==
// 0); a NaN of its own payload and a random sign on every rank (1); a mix of all (2).
std::vector<std::vector<float>> makeInputs(int p, size_t n, ReduceOp op, uint32_t seed) {
  std::mt19937 random(seed);
  std::uniform_real_distribution<float> mantissa(-1.0f, 1.0f);
  std::uniform_int_distribution<int> exponent(-20, 20), kind(0, 9);
  std::vector<std::vector<float>> inputs(p, std::vector<float>(n));
  for (int r = 0; r < p; ++r)
    for (size_t i = 0; i < n; ++i) {
      float value = std::ldexp(mantissa(random), exponent(random));
      if (op == ReduceOp::Max || op == ReduceOp::Min) {
        const int k = kind(random);
        const float nan = (k % 2 ? -1.0f : 1.0f) * nanWithPayload(static_cast<uint32_t>(1 + r * 1000 + i));
        const float zero = k % 2 ? -0.0f : 0.0f;
        switch (i % 3) {
          case 0: value = k < 8 ? zero : value; break;
          case 1: value = nan; break;
          default: value = k < 4 ? zero : k < 7 ? nan : value; break;
        }
      }
      inputs[r][i] = value;
    }
  return inputs;
}

void reduceInto(std::vector<float>& dst, const std::vector<float>& a, const std::vector<float>& b, ReduceOp op) {
  hostReduce(dst.data(), a.data(), b.data(), dst.size(), ElementType::Float32, op);
}

// The recursive-doubling expression, evaluated directly: the fold, then op(lower, upper) of
// neighbouring blocks, then the average's division.
std::vector<float> expectedResult(const std::vector<std::vector<float>>& inputs, ReduceOp op) {
  const int p = static_cast<int>(inputs.size());
  std::vector<std::vector<float>> partial = inputs;
  int p2 = 1;
  while (2 * p2 <= p) p2 *= 2;
  for (int r = 0; r + p2 < p; ++r) reduceInto(partial[r], partial[r], partial[r + p2], op);
  for (int mask = 1; mask < p2; mask <<= 1)
    for (int r = 0; r < p2; ++r)
      if (!(r & mask)) {
        reduceInto(partial[r], partial[r], partial[r | mask], op);
        partial[r | mask] = partial[r];
      }
  std::vector<float> result = partial[0];
  if (op == ReduceOp::Avg && p > 1) hostDivide(result.data(), result.size(), ElementType::Float32, p);
  return result;
}

struct SmallCase {
  int nranks = 1;
  size_t count = 0;
  ReduceOp op = ReduceOp::Sum;
  bool inPlace = false;
  size_t chunkElements = size_t{1} << 20;
  int pipelineDepth = 4;
  LinkStack links;

  std::string describe() const {
    return std::to_string(nranks) + " ranks, " + std::to_string(count) + " float " + reduceOpName(op) +
           (inPlace ? " in-place" : " out-of-place") + ", chunk " + std::to_string(chunkElements) + " depth " +
           std::to_string(pipelineDepth) + " over " + links.describe();
  }
};

// Runs the case; *outputs gets every rank's output bits.
Status runSmallCase(const SmallCase& c, const std::vector<std::vector<float>>& inputs,
                    std::vector<std::vector<uint32_t>>* outputs) {
  outputs->assign(c.nranks, {});
  ThreadJob job;
  job.nranks = c.nranks;
  job.links = c.links;
  return runOnThreadRanks(job, [&](RankContext& context) {
    const int rank = context.rank;
    const size_t n = c.count, size = sizeof(float);
    PlanRequest request{Collective::AllReduce, n, c.nranks, 0, c.inPlace, c.op == ReduceOp::Avg};
    const RankPlan plan = buildRecursiveDoublingAllReduce(request, rank);
    RankMemory memory(context);
    char *input = nullptr, *output = nullptr, *scratch = nullptr;
    HETCCL_TRY(memory.allocate(n * size, &input));
    if (c.inPlace)
      output = input;
    else
      HETCCL_TRY(memory.allocate(n * size, &output));
    HETCCL_TRY(memory.allocate(plan.scratchCount * size, &scratch));
    if (n > 0) std::memcpy(input, inputs[rank].data(), n * size);
    ExecutionSettings settings;
    settings.chunkBytes = c.chunkElements * size;
    settings.pipelineDepth = c.pipelineDepth;
    HETCCL_TRY(
        context.executor.run(plan, PlanBuffers{input, output, scratch}, ElementType::Float32, c.op, 0, settings));
    std::vector<uint32_t>& mine = (*outputs)[rank];
    mine.resize(n);
    if (n > 0) std::memcpy(mine.data(), output, n * size);
    if (!c.inPlace && n > 0 && std::memcmp(input, inputs[rank].data(), n * size) != 0)
      return HETCCL_STATUS(Code::InternalError, "the input changed\n%s", describePlan(plan).c_str());
    return Status::ok();
  });
}

void expectIdenticalOnEveryRank(const SmallCase& c, uint32_t seed) {
  const std::vector<std::vector<float>> inputs = makeInputs(c.nranks, c.count, c.op, seed);
  std::vector<std::vector<uint32_t>> outputs;
  Status status = runSmallCase(c, inputs, &outputs);
  ASSERT_TRUE(status.isOk()) << c.describe() << "\n" << status.message();
  const std::vector<float> expected = expectedResult(inputs, c.op);
  for (int r = 0; r < c.nranks; ++r)
    for (size_t i = 0; i < c.count; ++i) {
      ASSERT_EQ(outputs[r][i], outputs[0][i])
          << c.describe() << ": rank " << r << " element " << i << " differs from rank 0's";
      ASSERT_EQ(outputs[r][i], bitsOf(expected[i])) << c.describe() << ": rank " << r << " element " << i << " is "
                                                    << floatOf(outputs[r][i]) << ", expected " << expected[i];
    }
}

TEST(SmallAllReduceLoopback, EveryRankHoldsTheSameBitsOnOneToNineRanks) {
  const std::vector<LinkStack>& stacks = allLinkStacks();
  int cases = 0;
  for (int p = 1; p <= 9; ++p)
    for (ReduceOp op : {ReduceOp::Sum, ReduceOp::Avg, ReduceOp::Max, ReduceOp::Min})
      for (bool inPlace : {false, true}) {
        SmallCase c;
        c.nranks = p;
        c.op = op;
        c.inPlace = inPlace;
        c.count = cases % 5 == 0 ? 1 : 37;
        // Whole, and cut into tiny chunks in several pipelines at once.
        c.chunkElements = cases % 2 == 0 ? size_t{1} << 20 : 3;
        c.pipelineDepth = cases % 3 == 0 ? 1 : 4;
        c.links = stacks[cases % stacks.size()];
        expectIdenticalOnEveryRank(c, 1000 + cases);
        if (HasFatalFailure()) return;
        ++cases;
      }
  EXPECT_EQ(cases, 9 * 4 * 2);
}

// The inputs of the max/min cases are sensitive to operand order: on them op(a, b) and
// op(b, a) differ, so agreeing bits on every rank prove that both partners of every exchange
// used the same order.
TEST(SmallAllReduceLoopback, MaxMinInputsDistinguishOperandOrder) {
  for (ReduceOp op : {ReduceOp::Max, ReduceOp::Min}) {
    const std::vector<std::vector<float>> inputs = makeInputs(2, 37, op, 7);
    std::vector<float> ab(37), ba(37);
    reduceInto(ab, inputs[0], inputs[1], op);
    reduceInto(ba, inputs[1], inputs[0], op);
    int differing = 0, signedZeros = 0;
    for (size_t i = 0; i < ab.size(); ++i) {
      differing += bitsOf(ab[i]) != bitsOf(ba[i]);
      signedZeros += ab[i] == 0 && std::signbit(inputs[0][i]) != std::signbit(inputs[1][i]);
    }
    EXPECT_GT(differing, 0) << reduceOpName(op);
    EXPECT_GT(signedZeros, 0) << reduceOpName(op);
  }
  // And the results mean what max/min say: a NaN wins, and +0 > -0.
  const float plus = 0.0f, minus = -0.0f, nan = nanWithPayload(5);
  std::vector<std::vector<float>> inputs{{minus, plus, 1.0f}, {plus, nan, -2.0f}, {minus, minus, 3.0f}};
  std::vector<std::vector<uint32_t>> outputs;
  SmallCase c;
  c.nranks = 3;
  c.count = 3;
  c.op = ReduceOp::Max;
  ASSERT_TRUE(runSmallCase(c, inputs, &outputs).isOk());
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(outputs[r][0], bitsOf(plus)) << "rank " << r;
    EXPECT_EQ(outputs[r][1], bitsOf(nan)) << "rank " << r;
    EXPECT_EQ(outputs[r][2], bitsOf(3.0f)) << "rank " << r;
  }
  c.op = ReduceOp::Min;
  ASSERT_TRUE(runSmallCase(c, inputs, &outputs).isOk());
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(outputs[r][0], bitsOf(minus)) << "rank " << r;
    EXPECT_EQ(outputs[r][1], bitsOf(nan)) << "rank " << r;
    EXPECT_EQ(outputs[r][2], bitsOf(-2.0f)) << "rank " << r;
  }
}

}  // namespace
}  // namespace hetccl
