// hetcclCommSplit: the parts match MPI_Comm_split's (members and rank order), carry collectives
// bit-exactly, inherit their parent's configuration, and refused arguments neither hang the
// other ranks nor leave anything behind.
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "collective_checks.h"
#include "forced_algorithm.h"

namespace hetccl_test {
namespace {

const TypeInfo& ty(hetcclDataType_t t) { return typeInfo(t); }

// The config a part of `parent` is split with when the test gives none.  A part inherits a
// forced torus, which needs equal islands; parts of a split seldom have them (creation then
// fails, as it should), so those parts let the tuner choose.
const hetcclConfig_t* defaultPartConfig(const CommPair& parent) {
  static const hetcclConfig_t tunerChooses = [] {
    hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
    config.algorithm = "auto";
    return config;
  }();
  return forcedAlgorithm(parent) == "torus" ? &tunerChooses : nullptr;
}

// One part of a split: the hetccl communicator and the MPI communicator MPI_Comm_split makes
// from the same arguments (the reference runs on it).  Both are freed with the object.
class SplitPart {
 public:
  SplitPart(const CommPair& parent, int color, int key, const hetcclConfig_t* config = nullptr) {
    if (config == nullptr) config = defaultPartConfig(parent);
    result_ = hetcclCommSplit(parent.comm, color, key, &pair_.comm, config);
    if (result_ != hetcclSuccess) message_ = hetcclGetLastError(parent.comm);
    // A refused rank (any negative colour) takes part in no part.
    MPI_Comm_split(parent.mpi, color < 0 ? MPI_UNDEFINED : color, key, &pair_.mpi);
    if (config != nullptr && config->algorithm != nullptr)
      pair_.configAlgorithm = config->algorithm;
    else
      pair_.configAlgorithm = parent.configAlgorithm;
  }
  ~SplitPart() {
    if (pair_.comm != nullptr) {
      EXPECT_EQ(hetcclCommDestroy(pair_.comm), hetcclSuccess);
    }
    if (pair_.mpi != MPI_COMM_NULL) MPI_Comm_free(&pair_.mpi);
  }
  SplitPart(const SplitPart&) = delete;
  SplitPart& operator=(const SplitPart&) = delete;

  const CommPair& pair() const { return pair_; }
  hetcclResult_t result() const { return result_; }
  const std::string& message() const { return message_; }
  // EXPECTs that the split succeeded and the part has MPI's members in MPI's order.
  void expectMatchesMpi(const std::string& context) const {
    EXPECT_EQ(result_, hetcclSuccess) << context << ": " << message_;
    EXPECT_EQ(pair_.comm == nullptr, pair_.mpi == MPI_COMM_NULL) << context;
    if (pair_.comm == nullptr || pair_.mpi == MPI_COMM_NULL) return;
    int count = -1, rank = -1;
    EXPECT_EQ(hetcclCommCount(pair_.comm, &count), hetcclSuccess) << context;
    EXPECT_EQ(hetcclCommUserRank(pair_.comm, &rank), hetcclSuccess) << context;
    EXPECT_EQ(count, pair_.size()) << context;
    EXPECT_EQ(rank, pair_.rank()) << context;
  }

 private:
  CommPair pair_;
  hetcclResult_t result_ = hetcclInternalError;
  std::string message_;
};

// A rank left out of a part runs the same checks on a communicator of its own instead: every
// rank must draw the same test seeds (mpi_test_support.h), or later tests' data would differ
// between ranks.
template <typename Checks>
void onPartOrAlone(const CommPair& part, Checks checks) {
  if (part.comm != nullptr && part.mpi != MPI_COMM_NULL) {
    checks(part);
    return;
  }
  CommPair alone(nullptr, MPI_COMM_NULL);
  MPI_Comm_dup(MPI_COMM_SELF, &alone.mpi);
  EXPECT_EQ(hetcclCommInitMPI(&alone.comm, alone.mpi, nullptr), hetcclSuccess) << hetcclGetLastError(nullptr);
  if (alone.comm != nullptr) {
    checks(alone);
    EXPECT_EQ(hetcclCommDestroy(alone.comm), hetcclSuccess);
  }
  MPI_Comm_free(&alone.mpi);
}

// Every collective once on a part (every member calls it; see onPartOrAlone for the others).
void checkEveryCollective(const CommPair& part) {
  onPartOrAlone(part, [](const CommPair& p) {
    for (hetcclRedOp_t op : allOps()) checkAllReduce(p, {&ty(hetcclFloat64), op, 1021, false, 0, nullptr});
    checkAllReduce(p, {&ty(hetcclInt32), hetcclSum, 70000, true, 0, userStream()});
    checkReduceScatter(p, {&ty(hetcclFloat32), hetcclAvg, 257, false, 0, nullptr});
    checkAllGather(p, {&ty(hetcclUint8), hetcclSum, 333, true, 0, nullptr});
    checkBroadcast(p, {&ty(hetcclBfloat16), hetcclSum, 4099, false, p.size() - 1, nullptr});
    checkReduce(p, {&ty(hetcclInt64), hetcclMax, 61, false, 0, userStream()});
    checkAlltoAll(p, {&ty(hetcclFloat16), hetcclSum, 17, false, 0, nullptr});
  });
}

// Even and odd ranks, each part in reverse order of the parent's ranks.
TEST(CommSplit, PartsMatchMpiCommSplit) {
  const int rank = world().rank(), n = world().size();
  SplitPart part(world(), rank % 2, n - rank);
  part.expectMatchesMpi("parity split, reversed keys");
  checkEveryCollective(part.pair());
}

// Equal keys order by the parent's rank; one colour for all makes a copy of the parent.
TEST(CommSplit, EqualKeysKeepTheParentsOrder) {
  SplitPart whole(world(), 7, 0);
  whole.expectMatchesMpi("one colour, equal keys");
  EXPECT_EQ(whole.pair().rank(), world().rank());
  checkAllReduce(whole.pair(), {&ty(hetcclFloat32), hetcclSum, 4099, false, 0, nullptr});
}

TEST(CommSplit, NoColorGetsNoCommunicator) {
  const int rank = world().rank(), n = world().size();
  const bool last = rank == n - 1;
  SplitPart part(world(), last ? HETCCL_SPLIT_NOCOLOR : 0, rank);
  part.expectMatchesMpi("last rank without colour");
  if (last) {
    EXPECT_EQ(part.pair().comm, nullptr);
  }
  checkEveryCollective(part.pair());
}

// A part of a part, and the parent still usable between and after.
TEST(CommSplit, SplittingAPart) {
  const int rank = world().rank();
  SplitPart half(world(), rank % 2, rank);
  half.expectMatchesMpi("first split");
  if (half.pair().comm != nullptr) {
    const int inner = half.pair().rank();
    SplitPart quarter(half.pair(), inner / 2, -inner);
    quarter.expectMatchesMpi("split of the split");
    checkAllReduce(quarter.pair(), {&ty(hetcclUint32), hetcclMin, 1021, false, 0, nullptr});
    checkAllReduce(half.pair(), {&ty(hetcclFloat64), hetcclSum, 100, true, 0, nullptr});
  }
  checkAllReduce(world(), {&ty(hetcclInt8), hetcclMax, 1021, false, 0, nullptr});
}

// A rank with an invalid colour (or no output pointer) is refused, takes no part, and the
// others' split completes without it.
TEST(CommSplit, RefusedRankDoesNotHoldUpTheOthers) {
  const int rank = world().rank();
  const bool refused = rank == 0;
  SplitPart part(world(), refused ? -7 : 3, rank);
  if (refused) {
    EXPECT_EQ(part.result(), hetcclInvalidArgument);
    EXPECT_NE(part.message().find("color -7"), std::string::npos) << part.message();
    EXPECT_EQ(part.pair().comm, nullptr);
  } else {
    EXPECT_EQ(part.result(), hetcclSuccess) << part.message();
  }
  checkEveryCollective(part.pair());

  // No output pointer on the last rank: the others still form their part.
  const bool noOutput = rank == world().size() - 1;
  hetcclComm_t other = nullptr;
  const hetcclConfig_t* config = defaultPartConfig(world());
  const hetcclResult_t r = hetcclCommSplit(world().comm, 0, rank, noOutput ? nullptr : &other, config);
  MPI_Comm otherMpi = MPI_COMM_NULL;
  MPI_Comm_split(world().mpi, noOutput ? MPI_UNDEFINED : 0, rank, &otherMpi);
  EXPECT_EQ(r, noOutput ? hetcclInvalidArgument : hetcclSuccess) << hetcclGetLastError(world().comm);
  CommPair otherPair(other, otherMpi);
  if (config != nullptr) otherPair.configAlgorithm = config->algorithm;
  onPartOrAlone(otherPair, [](const CommPair& p) {
    checkAllReduce(p, {&ty(hetcclFloat32), hetcclSum, 61, false, 0, nullptr});
  });
  if (other != nullptr) {
    EXPECT_EQ(hetcclCommDestroy(other), hetcclSuccess);
  }
  if (otherMpi != MPI_COMM_NULL) MPI_Comm_free(&otherMpi);
  // The parent is untouched by the refusals.
  checkAllReduce(world(), {&ty(hetcclFloat32), hetcclSum, 1021, false, 0, nullptr});
}

TEST(CommSplit, InsideAGroupIsRefused) {
  hetcclComm_t part = nullptr;
  EXPECT_EQ(hetcclGroupStart(), hetcclSuccess);
  const hetcclResult_t r = hetcclCommSplit(world().comm, 0, 0, &part, nullptr);
  EXPECT_EQ(hetcclGroupEnd(), hetcclSuccess);
  EXPECT_EQ(r, hetcclInvalidUsage);
  EXPECT_EQ(part, nullptr);
  EXPECT_NE(std::string(hetcclGetLastError(world().comm)).find("group"), std::string::npos);
}

// Without a config the part runs with its parent's (here the algorithm); with one, with that.
TEST(CommSplit, InheritsTheParentsConfiguration) {
  hetcclConfig_t ringConfig = HETCCL_CONFIG_INITIALIZER;
  ringConfig.algorithm = "ring";
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(world().mpi, &dup);
  CommPair parent(nullptr, dup);
  parent.configAlgorithm = "ring";
  EXPECT_EQ(hetcclCommInitMPI(&parent.comm, dup, &ringConfig), hetcclSuccess) << hetcclGetLastError(nullptr);
  {
    SplitPart inherited(parent, 0, world().rank());
    inherited.expectMatchesMpi("inherited config");
    // The check also EXPECTs that the part's forced algorithm (the parent's ring) ran.
    checkAllReduce(inherited.pair(), {&ty(hetcclFloat32), hetcclSum, 65536, false, 0, nullptr});

    hetcclConfig_t smallConfig = HETCCL_CONFIG_INITIALIZER;
    smallConfig.algorithm = "small";
    SplitPart own(parent, 0, world().rank(), &smallConfig);
    own.expectMatchesMpi("own config");
    checkAllReduce(own.pair(), {&ty(hetcclFloat32), hetcclSum, 4099, false, 0, nullptr});
  }
  EXPECT_EQ(hetcclCommDestroy(parent.comm), hetcclSuccess);
  MPI_Comm_free(&dup);
}

// Operations queued on the parent (not yet synchronised) finish before the split, with their
// results intact.
TEST(CommSplit, AfterQueuedOperations) {
  const int rank = world().rank(), n = world().size();
  constexpr size_t kCount = 1 << 16;
  std::vector<int32_t> input(kCount);
  for (size_t i = 0; i < kCount; ++i) input[i] = static_cast<int32_t>(i % 1000) * (rank + 1);
  std::vector<int32_t> expected(kCount);
  MPI_Allreduce(input.data(), expected.data(), static_cast<int>(kCount), MPI_INT32_T, MPI_SUM, world().mpi);
  DeviceBuffer buffer(kCount * sizeof(int32_t));
  buffer.upload(Bytes(reinterpret_cast<const unsigned char*>(input.data()),
                      reinterpret_cast<const unsigned char*>(input.data()) + kCount * sizeof(int32_t)));
  for (int i = 0; i < 3; ++i)  // in place three times: the first result is then reduced again
    EXPECT_EQ(hetcclAllReduce(buffer.data(), buffer.data(), kCount, hetcclInt32, i == 0 ? hetcclSum : hetcclMax,
                              world().comm, userStream()),
              hetcclSuccess);
  SplitPart part(world(), rank % 2, rank);
  part.expectMatchesMpi("split after queued operations");
  EXPECT_EQ(hetcclStreamSynchronize(userStream()), hetcclSuccess);
  const Bytes result = buffer.download();
  EXPECT_EQ(0, memcmp(result.data(), expected.data(), result.size())) << "n=" << n;
  checkAllReduce(part.pair(), {&ty(hetcclInt32), hetcclSum, 1021, false, 0, nullptr});
}

}  // namespace
}  // namespace hetccl_test
