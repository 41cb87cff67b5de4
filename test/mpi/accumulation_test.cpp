// fp32 accumulation (config.accumulate = "float32", HETCCL_ACCUMULATE): float16 and bfloat16
// all-reduce and reduce-scatter with every algorithm that applies here, against the exact sum
// rounded once, computed by this test (reference.h's own rounding).  The inputs are built so
// that rounding at every hop would lose bits: rank 0 holds values near 1, every other rank
// small multiples of the narrow type's half-ulp at 1, so the exact float32 sum is known and
// its narrow rounding differs from most hop-by-hop ones.  Every rank must hold those bits.
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mpi_test_support.h"
#include "reference.h"

namespace hetccl_test {
namespace {

struct NarrowType {
  hetcclDataType_t type;
  const char* name;
  int fractionBits;  // 10 for float16, 7 for bfloat16
  uint16_t (*fromFloat)(float);
};
const NarrowType kTypes[] = {{hetcclFloat16, "float16", 10, floatToHalf},
                             {hetcclBfloat16, "bfloat16", 7, floatToBfloat16}};

// Rank 0: 1 + k ulp (k = 0..3); the others: (1 + (i + rank) % 3) half-ulps.  Exact in the type
// (and in float32, as is their sum for any rank count here).
float inputValue(const NarrowType& t, int rank, size_t index) {
  const float ulp = std::ldexp(1.0f, -t.fractionBits);
  if (rank == 0) return 1.0f + float(index % 4) * ulp;
  return float(1 + (index + size_t(rank)) % 3) * ulp / 2;
}

uint16_t expectedBits(const NarrowType& t, hetcclRedOp_t op, int nranks, size_t index) {
  float sum = 0;  // exact: see inputValue
  for (int rank = 0; rank < nranks; ++rank) sum += inputValue(t, rank, index);
  return t.fromFloat(op == hetcclAvg ? sum / float(nranks) : sum);  // the library's DivideOp<float>
}

Bytes narrowBytes(const std::vector<uint16_t>& values) {
  Bytes bytes(values.size() * 2);
  std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// A communicator over MPI_COMM_WORLD with fp32 accumulation and `algorithm` forced; null when
// this topology cannot run it (every rank agrees: creation is collective).
hetcclComm_t accumulatingComm(const char* algorithm) {
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.algorithm = algorithm;
  config.accumulate = "float32";
  hetcclComm_t comm = nullptr;
  if (hetcclCommInitMPI(&comm, MPI_COMM_WORLD, &config) != hetcclSuccess) return nullptr;
  return comm;
}

std::string lastAlgorithm(hetcclComm_t comm) {
  const char* name = nullptr;
  return hetcclCommGetAlgorithm(comm, &name) == hetcclSuccess && name ? name : "";
}

const char* const kAlgorithms[] = {"auto", "ring", "hier", "torus", "hier-rhd", "hier-tree", "hier-dbtree", "small"};
const size_t kCounts[] = {1, 3, 61, 1021, 4099};

void checkAllReduce(hetcclComm_t comm, const NarrowType& t, hetcclRedOp_t op, size_t count, bool inPlace,
                    const std::string& where) {
  const int rank = world().rank(), n = world().size();
  std::vector<uint16_t> input(count), want(count);
  for (size_t i = 0; i < count; ++i) {
    input[i] = t.fromFloat(inputValue(t, rank, i));
    want[i] = expectedBits(t, op, n, i);
  }
  DeviceBuffer send(count * 2), recv(inPlace ? 0 : count * 2);
  send.upload(narrowBytes(input));
  void* out = inPlace ? send.data() : recv.data();
  expectSuccess(hetcclAllReduce(send.data(), out, count, t.type, op, comm, nullptr), comm, where);
  expectSuccess(hetcclStreamSynchronize(nullptr), comm, where);
  const Bytes got = inPlace ? send.download() : recv.download();
  EXPECT_EQ(0, std::memcmp(got.data(), narrowBytes(want).data(), got.size())) << where;
  EXPECT_TRUE(send.guardsIntact() && recv.guardsIntact()) << where;
}

void checkReduceScatter(hetcclComm_t comm, const NarrowType& t, hetcclRedOp_t op, size_t count, bool inPlace,
                        const std::string& where) {
  const int rank = world().rank(), n = world().size();
  const size_t total = count * size_t(n);
  std::vector<uint16_t> input(total), want(count);
  for (size_t i = 0; i < total; ++i) input[i] = t.fromFloat(inputValue(t, rank, i));
  for (size_t i = 0; i < count; ++i) want[i] = expectedBits(t, op, n, size_t(rank) * count + i);
  DeviceBuffer send(total * 2), recv(inPlace ? 0 : count * 2);
  send.upload(narrowBytes(input));
  void* out = inPlace ? send.at(size_t(rank) * count * 2) : recv.data();
  expectSuccess(hetcclReduceScatter(send.data(), out, count, t.type, op, comm, nullptr), comm, where);
  expectSuccess(hetcclStreamSynchronize(nullptr), comm, where);
  const Bytes got = inPlace ? send.download(size_t(rank) * count * 2, count * 2) : recv.download();
  EXPECT_EQ(0, std::memcmp(got.data(), narrowBytes(want).data(), got.size())) << where;
}

TEST(Accumulation, EveryAlgorithmSumsInFloat32AndRoundsOnce) {
  int ran = 0;
  for (const char* algorithm : kAlgorithms) {
    hetcclComm_t comm = accumulatingComm(algorithm);
    if (!comm) continue;  // not on this topology (torus on unequal islands)
    ++ran;
    for (const NarrowType& t : kTypes)
      for (hetcclRedOp_t op : {hetcclSum, hetcclAvg})
        for (size_t count : kCounts)
          for (bool inPlace : {false, true}) {
            const std::string where = std::string(algorithm) + " " + t.name + (op == hetcclAvg ? " avg" : " sum") +
                                      " count " + std::to_string(count) + (inPlace ? " in place" : "");
            checkAllReduce(comm, t, op, count, inPlace, "all-reduce " + where);
            // What ran: a plan of hetccl's, accumulated (never the vendor library whole).
            const std::string label = lastAlgorithm(comm);
            EXPECT_EQ(label.substr(label.size() < 5 ? 0 : label.size() - 5), "+fp32") << where << ": " << label;
            checkReduceScatter(comm, t, op, count, inPlace, "reduce-scatter " + where);
          }
    expectSuccess(hetcclCommDestroy(comm), nullptr, algorithm);
  }
  EXPECT_GE(ran, 2);
}

// Without accumulation the same all-reduce rounds at every hop: on 3 ranks or more some
// element differs from the once-rounded sum (so the test above can tell the two apart), and
// the other types and ops are untouched by the setting.
TEST(Accumulation, NativeRoundingDiffersAndOtherTypesAreUnchanged) {
  const int n = world().size();
  if (n < 3) GTEST_SKIP() << "two ranks' sums round once either way";
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.accumulate = "native";
  config.algorithm = "ring";
  hetcclComm_t comm = nullptr;
  expectSuccess(hetcclCommInitMPI(&comm, MPI_COMM_WORLD, &config), nullptr, "native comm");
  const NarrowType& t = kTypes[1];
  const size_t count = 4099;
  std::vector<uint16_t> input(count), want(count);
  for (size_t i = 0; i < count; ++i) {
    input[i] = t.fromFloat(inputValue(t, world().rank(), i));
    want[i] = expectedBits(t, hetcclSum, n, i);
  }
  DeviceBuffer send(count * 2);
  send.upload(narrowBytes(input));
  expectSuccess(hetcclAllReduce(send.data(), send.data(), count, t.type, hetcclSum, comm, nullptr), comm, "native");
  expectSuccess(hetcclStreamSynchronize(nullptr), comm, "native");
  EXPECT_NE(0, std::memcmp(send.download().data(), narrowBytes(want).data(), count * 2));
  EXPECT_EQ(lastAlgorithm(comm).find("fp32"), std::string::npos);
  expectSuccess(hetcclCommDestroy(comm), nullptr, "native comm");

  // float32 sums and bfloat16 max under "float32" run as ever: no "+fp32" plan.
  hetcclComm_t accumulating = accumulatingComm("ring");
  ASSERT_NE(accumulating, nullptr);
  DeviceBuffer values(count * 4);
  expectSuccess(hetcclAllReduce(values.data(), values.data(), count, hetcclFloat32, hetcclSum, accumulating, nullptr),
                accumulating, "float32");
  EXPECT_EQ(lastAlgorithm(accumulating).find("fp32"), std::string::npos);
  expectSuccess(hetcclAllReduce(values.data(), values.data(), count, hetcclBfloat16, hetcclMax, accumulating, nullptr),
                accumulating, "bfloat16 max");
  EXPECT_EQ(lastAlgorithm(accumulating).find("fp32"), std::string::npos);
  expectSuccess(hetcclStreamSynchronize(nullptr), accumulating, "sync");
  expectSuccess(hetcclCommDestroy(accumulating), nullptr, "accumulating comm");
}

}  // namespace
}  // namespace hetccl_test
