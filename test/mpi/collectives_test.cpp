// Every collective against an independent reference, bit for bit: the full type x op x count x
// placement matrix at small and medium counts, and a selected subset at multi-MiB counts (the
// full matrix there would take minutes on a 2-core machine with 8 oversubscribed ranks).
#include <vector>

#include <gtest/gtest.h>

#include "collective_checks.h"

namespace hetccl_test {
namespace {

// 0 and 1..3 (fewer elements than ranks), primes that never divide evenly into ranks or
// chunks; 1021 and 4099 elements span several pipeline chunks and split messages in the ctest
// variants with small HETCCL_CHUNK_BYTES / HETCCL_TRANSPORT_MAX_MESSAGE_BYTES.
const std::vector<size_t> kCounts = {0, 1, 2, 3, 7, 61, 1021, 4099};

// Both the default stream and a user stream, alternately.
hetcclStream_t streamFor(size_t iteration) { return iteration % 2 ? userStream() : nullptr; }

class TypeMatrix : public ::testing::TestWithParam<hetcclDataType_t> {
 protected:
  const TypeInfo& type() const { return typeInfo(GetParam()); }
};

std::string typeName(const ::testing::TestParamInfo<hetcclDataType_t>& info) { return typeInfo(info.param).name; }

std::vector<hetcclDataType_t> typeParams() {
  std::vector<hetcclDataType_t> types;
  for (const TypeInfo& t : allTypes()) types.push_back(t.type);
  return types;
}

class AllReduceMatrix : public TypeMatrix {};
class ReduceScatterMatrix : public TypeMatrix {};
class AllGatherMatrix : public TypeMatrix {};
class BroadcastMatrix : public TypeMatrix {};
class ReduceMatrix : public TypeMatrix {};
class AlltoAllMatrix : public TypeMatrix {};

TEST_P(AllReduceMatrix, EveryOpCountAndPlacement) {
  size_t i = 0;
  for (hetcclRedOp_t op : allOps())
    for (size_t count : kCounts)
      for (bool inPlace : {false, true}) {
        checkAllReduce(world(), {&type(), op, count, inPlace, 0, streamFor(i++)});
      }
}

TEST_P(ReduceScatterMatrix, EveryOpCountAndPlacement) {
  size_t i = 0;
  for (hetcclRedOp_t op : allOps())
    for (size_t count : kCounts)
      for (bool inPlace : {false, true}) {
        checkReduceScatter(world(), {&type(), op, count, inPlace, 0, streamFor(i++)});
      }
}

TEST_P(AllGatherMatrix, EveryCountAndPlacement) {
  size_t i = 0;
  for (size_t count : kCounts)
    for (bool inPlace : {false, true}) {
      checkAllGather(world(), {&type(), hetcclSum, count, inPlace, 0, streamFor(i++)});
    }
}

TEST_P(AlltoAllMatrix, EveryCountAndPlacement) {
  size_t i = 0;
  for (size_t count : kCounts)
    for (bool inPlace : {false, true}) {
      checkAlltoAll(world(), {&type(), hetcclSum, count, inPlace, 0, streamFor(i++)});
    }
}

TEST_P(BroadcastMatrix, EveryCountPlacementAndRoot) {
  const int n = world().size();
  size_t i = 0;
  // Every count with a root that moves with the count, always including the last rank.
  for (size_t c = 0; c < kCounts.size(); ++c)
    for (bool inPlace : {false, true}) {
      const int root = c == 0 ? n - 1 : static_cast<int>((c + (inPlace ? 1 : 0)) % n);
      checkBroadcast(world(), {&type(), hetcclSum, kCounts[c], inPlace, root, streamFor(i++)});
    }
  // Every root at a small and a multi-chunk count.
  for (int root = 0; root < n; ++root)
    for (size_t count : {size_t{7}, size_t{1021}}) {
      checkBroadcast(world(), {&type(), hetcclSum, count, root % 2 == 1, root, streamFor(i++)});
    }
}

TEST_P(ReduceMatrix, EveryOpCountPlacementAndRoot) {
  const int n = world().size();
  const std::vector<hetcclRedOp_t>& ops = allOps();
  size_t i = 0;
  for (size_t o = 0; o < ops.size(); ++o)
    for (size_t c = 0; c < kCounts.size(); ++c)
      for (bool inPlace : {false, true}) {
        const int root = static_cast<int>((o + c + (inPlace ? 1 : 0)) % n);
        checkReduce(world(), {&type(), ops[o], kCounts[c], inPlace, root, streamFor(i++)});
      }
  // Every root (the last rank included) at small counts, cycling through the ops.
  for (int root = 0; root < n; ++root)
    for (size_t count : {size_t{1}, size_t{61}}) {
      const hetcclRedOp_t op = ops[(static_cast<size_t>(root) + count) % ops.size()];
      checkReduce(world(), {&type(), op, count, root % 2 == 0, root, streamFor(i++)});
    }
}

INSTANTIATE_TEST_SUITE_P(Types, AllReduceMatrix, ::testing::ValuesIn(typeParams()), typeName);
INSTANTIATE_TEST_SUITE_P(Types, ReduceScatterMatrix, ::testing::ValuesIn(typeParams()), typeName);
INSTANTIATE_TEST_SUITE_P(Types, AllGatherMatrix, ::testing::ValuesIn(typeParams()), typeName);
INSTANTIATE_TEST_SUITE_P(Types, BroadcastMatrix, ::testing::ValuesIn(typeParams()), typeName);
INSTANTIATE_TEST_SUITE_P(Types, ReduceMatrix, ::testing::ValuesIn(typeParams()), typeName);
INSTANTIATE_TEST_SUITE_P(Types, AlltoAllMatrix, ::testing::ValuesIn(typeParams()), typeName);

// ---------------------------------------------------------------------------------------------
// Multi-MiB counts: a subset chosen to cover one type of each width and each op once or twice.

const TypeInfo& ty(hetcclDataType_t t) { return typeInfo(t); }
constexpr size_t kFloatLarge = (size_t{1} << 20) + 3;  // 4 MiB + 12 B of float32
constexpr size_t kInt8Large = size_t{3} << 20;         // 3 MiB of int8
constexpr size_t kBf16Large = (size_t{1} << 20) + 5;   // 2 MiB + 10 B of bfloat16
constexpr size_t kInt64Large = (size_t{1} << 18) + 1;  // 2 MiB + 8 B of int64

// Per-rank count for collectives whose buffers are nranks times larger: about the same total.
size_t perRank(size_t total, size_t extra) { return total / static_cast<size_t>(world().size()) + extra; }

TEST(LargeCounts, AllReduce) {
  checkAllReduce(world(), {&ty(hetcclFloat32), hetcclSum, kFloatLarge, false, 0, nullptr});
  checkAllReduce(world(), {&ty(hetcclBfloat16), hetcclAvg, kBf16Large, true, 0, userStream()});
  checkAllReduce(world(), {&ty(hetcclInt8), hetcclMax, kInt8Large, false, 0, nullptr});
  checkAllReduce(world(), {&ty(hetcclInt64), hetcclProd, kInt64Large, true, 0, nullptr});
}

TEST(LargeCounts, ReduceScatter) {
  checkReduceScatter(world(), {&ty(hetcclFloat32), hetcclSum, perRank(kFloatLarge, 3), false, 0, nullptr});
  checkReduceScatter(world(), {&ty(hetcclBfloat16), hetcclAvg, perRank(kBf16Large, 1), true, 0, nullptr});
  checkReduceScatter(world(), {&ty(hetcclInt8), hetcclMax, perRank(kInt8Large, 1), false, 0, userStream()});
  checkReduceScatter(world(), {&ty(hetcclInt64), hetcclProd, perRank(kInt64Large, 1), true, 0, nullptr});
}

TEST(LargeCounts, AllGather) {
  checkAllGather(world(), {&ty(hetcclFloat32), hetcclSum, perRank(kFloatLarge, 3), false, 0, nullptr});
  checkAllGather(world(), {&ty(hetcclInt8), hetcclSum, perRank(kInt8Large, 1), true, 0, userStream()});
}

TEST(LargeCounts, Broadcast) {
  const int last = world().size() - 1;
  checkBroadcast(world(), {&ty(hetcclFloat32), hetcclSum, kFloatLarge, false, last, nullptr});
  checkBroadcast(world(), {&ty(hetcclInt8), hetcclSum, kInt8Large, true, 0, userStream()});
}

TEST(LargeCounts, Reduce) {
  const int n = world().size();
  checkReduce(world(), {&ty(hetcclFloat32), hetcclSum, kFloatLarge, false, n - 1, nullptr});
  checkReduce(world(), {&ty(hetcclBfloat16), hetcclAvg, kBf16Large, true, 0, nullptr});
  checkReduce(world(), {&ty(hetcclInt8), hetcclMin, kInt8Large, false, n / 2, userStream()});
  checkReduce(world(), {&ty(hetcclInt64), hetcclProd, kInt64Large, true, 1 % n, nullptr});
}

TEST(LargeCounts, AlltoAll) {
  checkAlltoAll(world(), {&ty(hetcclFloat32), hetcclSum, perRank(kFloatLarge, 3), false, 0, nullptr});
  checkAlltoAll(world(), {&ty(hetcclUint8), hetcclSum, perRank(kInt8Large, 1), true, 0, userStream()});
}

}  // namespace
}  // namespace hetccl_test
