// Communicator life and identity: rank/size against MPI, several communicators at once (one with
// reversed rank order, sub-communicators of different sizes, single-rank ones), create/destroy
// cycles, per-communicator configuration, version.
#include <algorithm>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "collective_checks.h"

namespace hetccl_test {
namespace {

// A hetccl communicator over an MPI communicator this object owns; destroyed with it.
class OwnedComm {
 public:
  OwnedComm(MPI_Comm mpi, const hetcclConfig_t* config = nullptr) {
    pair_.mpi = mpi;
    if (config != nullptr && config->algorithm != nullptr) pair_.configAlgorithm = config->algorithm;
    const hetcclResult_t r = hetcclCommInitMPI(&pair_.comm, mpi, config);
    EXPECT_EQ(r, hetcclSuccess) << "hetcclCommInitMPI: " << hetcclGetLastError(nullptr);
    if (r != hetcclSuccess) pair_.comm = nullptr;
  }
  ~OwnedComm() {
    if (pair_.comm != nullptr) {
      EXPECT_EQ(hetcclCommDestroy(pair_.comm), hetcclSuccess);
    }
    MPI_Comm_free(&pair_.mpi);
  }
  OwnedComm(const OwnedComm&) = delete;
  OwnedComm& operator=(const OwnedComm&) = delete;
  const CommPair& pair() const { return pair_; }

 private:
  CommPair pair_;
};

MPI_Comm splitWorld(int color, int key) {
  MPI_Comm c = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, color, key, &c);
  return c;
}

void expectIdentityMatchesMpi(const CommPair& p, const char* which) {
  int count = -1, rank = -1;
  EXPECT_EQ(hetcclCommCount(p.comm, &count), hetcclSuccess) << which;
  EXPECT_EQ(hetcclCommUserRank(p.comm, &rank), hetcclSuccess) << which;
  EXPECT_EQ(count, p.size()) << which;
  EXPECT_EQ(rank, p.rank()) << which;
}

const TypeInfo& ty(hetcclDataType_t t) { return typeInfo(t); }

TEST(Communicator, VersionMatchesHeader) {
  int version = -1;
  EXPECT_EQ(hetcclGetVersion(&version), hetcclSuccess);
  EXPECT_EQ(version, HETCCL_VERSION_CODE);
}

TEST(Communicator, CountAndRankMatchMpi) {
  expectIdentityMatchesMpi(world(), "world");
  int worldSize = 0, worldRank = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &worldSize);
  MPI_Comm_rank(MPI_COMM_WORLD, &worldRank);
  int count = -1, rank = -1;
  hetcclCommCount(world().comm, &count);
  hetcclCommUserRank(world().comm, &rank);
  EXPECT_EQ(count, worldSize);
  EXPECT_EQ(rank, worldRank);
  hetcclResult_t async = hetcclInternalError;
  EXPECT_EQ(hetcclCommGetAsyncError(world().comm, &async), hetcclSuccess);
  EXPECT_EQ(async, hetcclSuccess);
}

// Rank r of the world is rank n-1-r of the second communicator: a library that confused the two
// numberings would put gathered blocks and reduce roots in the wrong place.
TEST(Communicator, TwoCommunicatorsUsedAlternately) {
  const int n = world().size(), rank = world().rank();
  OwnedComm reversed(splitWorld(0, n - 1 - rank));
  const CommPair& rev = reversed.pair();
  expectIdentityMatchesMpi(rev, "reversed");
  EXPECT_EQ(rev.rank(), n - 1 - rank);
  for (int iteration = 0; iteration < 3; ++iteration) {
    checkAllReduce(world(), {&ty(hetcclFloat32), hetcclSum, 4099, false, 0, nullptr});
    checkAllGather(rev, {&ty(hetcclInt32), hetcclSum, 61, iteration % 2 == 1, 0, nullptr});
    checkReduce(rev, {&ty(hetcclInt64), hetcclMax, 1021, false, 0, userStream()});
    checkBroadcast(world(), {&ty(hetcclUint8), hetcclSum, 7, false, n - 1, nullptr});
    checkReduceScatter(rev, {&ty(hetcclFloat16), hetcclAvg, 33, iteration % 2 == 0, 0, nullptr});
    checkAlltoAll(rev, {&ty(hetcclBfloat16), hetcclSum, 5, false, 0, nullptr});
    checkAllReduce(rev, {&ty(hetcclInt8), hetcclMin, 1021, true, 0, nullptr});
  }
}

// Even and odd ranks form communicators of different sizes that work independently.
TEST(Communicator, SubCommunicatorsOfDifferentSizes) {
  const int rank = world().rank();
  OwnedComm half(splitWorld(rank % 2, rank));
  expectIdentityMatchesMpi(half.pair(), "parity split");
  for (hetcclRedOp_t op : allOps()) {
    checkAllReduce(half.pair(), {&ty(hetcclFloat64), op, 1021, false, 0, nullptr});
    checkReduceScatter(half.pair(), {&ty(hetcclUint32), op, 17, true, 0, nullptr});
  }
  checkBroadcast(half.pair(), {&ty(hetcclFloat32), hetcclSum, 4099, false, half.pair().size() - 1, nullptr});
}

// A communicator of one rank: every collective is a local copy (avg divides by 1).
TEST(Communicator, SingleRankCommunicator) {
  OwnedComm alone(splitWorld(world().rank(), 0));
  const CommPair& p = alone.pair();
  expectIdentityMatchesMpi(p, "single");
  EXPECT_EQ(p.size(), 1);
  for (const TypeInfo& t : allTypes()) {
    for (hetcclRedOp_t op : allOps()) {
      checkAllReduce(p, {&t, op, 61, op == hetcclAvg, 0, nullptr});
      checkReduce(p, {&t, op, 7, op == hetcclSum, 0, nullptr});
      checkReduceScatter(p, {&t, op, 3, op == hetcclMax, 0, nullptr});
    }
    checkAllGather(p, {&t, hetcclSum, 61, false, 0, nullptr});
    checkBroadcast(p, {&t, hetcclSum, 61, true, 0, nullptr});
    checkAlltoAll(p, {&t, hetcclSum, 61, false, 0, nullptr});
  }
}

TEST(Communicator, CreateDestroyLoop) {
  for (int iteration = 0; iteration < 4; ++iteration) {
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    OwnedComm c(dup);
    expectIdentityMatchesMpi(c.pair(), "loop");
    checkAllReduce(c.pair(), {&ty(hetcclFloat32), hetcclSum, 1021, iteration % 2 == 1, 0, nullptr});
  }
}

// Communicators created from the same MPI communicator are independent (hetccl duplicates it).
TEST(Communicator, TwoCommunicatorsOverWorld) {
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  OwnedComm second(dup);
  // The second one is over a dup only so OwnedComm may free it; build a third over WORLD itself.
  hetcclComm_t third = nullptr;
  EXPECT_EQ(hetcclCommInitMPI(&third, MPI_COMM_WORLD, nullptr), hetcclSuccess);
  const CommPair thirdPair{third, MPI_COMM_WORLD};
  for (int iteration = 0; iteration < 2; ++iteration) {
    checkAllReduce(second.pair(), {&ty(hetcclInt32), hetcclSum, 4099, false, 0, nullptr});
    if (third != nullptr) checkAllReduce(thirdPair, {&ty(hetcclInt32), hetcclProd, 4099, false, 0, nullptr});
    checkAllReduce(world(), {&ty(hetcclInt32), hetcclMax, 4099, false, 0, nullptr});
  }
  if (third != nullptr) {
    EXPECT_EQ(hetcclCommDestroy(third), hetcclSuccess);
  }
}

// Settings from the config (not the environment) are honoured and give the same bits.  The
// config's algorithm overrides HETCCL_ALGO: each check below also EXPECTs that the forced
// algorithm ran (forced_algorithm.h); "small" has all-reduce and all-gather plans, and with "auto"
// the tuner picks one of the names hetcclCommGetAlgorithm documents.
TEST(Communicator, ConfigChunkDepthAndAlgorithm) {
  for (const char* algorithm : {"auto", "ring", "small"}) {
    hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
    config.chunkBytes = 1024;
    config.pipelineDepth = 2;
    config.algorithm = algorithm;
    MPI_Comm dup = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    OwnedComm c(dup, &config);
    checkAllReduce(c.pair(), {&ty(hetcclFloat32), hetcclSum, 4099, false, 0, nullptr});
    const char* ran = nullptr;
    EXPECT_EQ(hetcclCommGetAlgorithm(c.pair().comm, &ran), hetcclSuccess);
    const std::string allReduceRan = ran ? ran : "(null)";
    if (std::string(algorithm) == "auto") {
      const std::set<std::string> tunable{"ring", "hier", "torus", "hier-rhd", "hier-tree", "hier-dbtree", "small"};
      EXPECT_EQ(tunable.count(allReduceRan), 1u) << "config.algorithm=auto ran " << allReduceRan;
    } else {
      EXPECT_EQ(allReduceRan, algorithm) << "config.algorithm=" << algorithm;
    }
    // The tuner's prediction for the plan that ran: positive, and refused without a place to go.
    double predicted = -1;
    EXPECT_EQ(hetcclCommGetPredictedTime(c.pair().comm, &predicted), hetcclSuccess);
    EXPECT_GT(predicted, 0) << "config.algorithm=" << algorithm;
    EXPECT_LT(predicted, 10) << "config.algorithm=" << algorithm;
    EXPECT_EQ(hetcclCommGetPredictedTime(c.pair().comm, nullptr), hetcclInvalidArgument);
    checkReduceScatter(c.pair(), {&ty(hetcclBfloat16), hetcclAvg, 1021, true, 0, nullptr});
    checkAllGather(c.pair(), {&ty(hetcclInt8), hetcclSum, 3001, false, 0, nullptr});
    checkReduce(c.pair(), {&ty(hetcclUint64), hetcclMin, 1021, false, c.pair().size() - 1, nullptr});
  }
}

// hetcclCommGetAlgorithm follows every call.  A cached plan's label is copied only when the
// cache entry changes (core/dispatch.cpp), so a return to an earlier entry, and to the same
// entry right after a point-to-point group, must still be reported.  Direct calls: the check
// helpers make several calls each.
TEST(Communicator, AlgorithmReportedFollowsEachCall) {
  const CommPair& w = world();
  if (w.size() < 2) GTEST_SKIP() << "needs two ranks";
  auto ran = [&] {
    const char* name = nullptr;
    EXPECT_EQ(hetcclCommGetAlgorithm(w.comm, &name), hetcclSuccess);
    return std::string(name ? name : "(null)");
  };
  std::vector<float> data(97, 1.0f);
  auto allReduce = [&] {
    std::fill(data.begin(), data.end(), 1.0f);
    EXPECT_EQ(hetcclAllReduce(data.data(), data.data(), data.size(), hetcclFloat32, hetcclSum, w.comm, nullptr),
              hetcclSuccess);
    EXPECT_EQ(hetcclStreamSynchronize(nullptr), hetcclSuccess);
    EXPECT_EQ(data, std::vector<float>(data.size(), static_cast<float>(w.size())));
    return ran();
  };
  auto broadcast = [&] {
    EXPECT_EQ(hetcclBroadcast(data.data(), data.data(), data.size(), hetcclFloat32, 0, w.comm, nullptr), hetcclSuccess);
    EXPECT_EQ(hetcclStreamSynchronize(nullptr), hetcclSuccess);
    return ran();
  };
  auto pointToPoint = [&] {
    const int next = (w.rank() + 1) % w.size(), previous = (w.rank() + w.size() - 1) % w.size();
    std::vector<uint64_t> out(8, static_cast<uint64_t>(w.rank())), in(8, 0);
    EXPECT_EQ(hetcclGroupStart(), hetcclSuccess);
    EXPECT_EQ(hetcclSend(out.data(), out.size(), hetcclUint64, next, w.comm, nullptr), hetcclSuccess);
    EXPECT_EQ(hetcclRecv(in.data(), in.size(), hetcclUint64, previous, w.comm, nullptr), hetcclSuccess);
    EXPECT_EQ(hetcclGroupEnd(), hetcclSuccess);
    EXPECT_EQ(hetcclStreamSynchronize(nullptr), hetcclSuccess);
    EXPECT_EQ(in, std::vector<uint64_t>(8, static_cast<uint64_t>(previous)));
    return ran();
  };
  // (The labels differ by default; a forced algorithm, or a native island, may give the same.)
  const std::string reduced = allReduce(), broadcastLabel = broadcast();
  EXPECT_EQ(allReduce(), reduced);
  EXPECT_EQ(allReduce(), reduced);
  pointToPoint();
  EXPECT_EQ(allReduce(), reduced);
  EXPECT_EQ(broadcast(), broadcastLabel);
}

TEST(Communicator, AbortFreesCommunicator) {
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  hetcclComm_t c = nullptr;
  EXPECT_EQ(hetcclCommInitMPI(&c, dup, nullptr), hetcclSuccess);
  if (c != nullptr) {
    checkAllReduce(CommPair{c, dup}, {&ty(hetcclFloat32), hetcclSum, 61, false, 0, nullptr});
    EXPECT_EQ(hetcclCommAbort(c), hetcclSuccess);
  }
  MPI_Comm_free(&dup);
  // The world communicator is unaffected.
  checkAllReduce(world(), {&ty(hetcclFloat32), hetcclSum, 61, false, 0, nullptr});
}

}  // namespace
}  // namespace hetccl_test

namespace hetccl_test {
namespace {

// The strict host device stands for a GPU without GPU-aware MPI: claiming MPI reads its memory
// is refused at creation on every rank, naming the setting (only under HETCCL_DEVICE=host-strict).
TEST(StrictDevice, ForcingGpuAwareMpiIsRefused) {
  const char* kind = nullptr;
  ASSERT_EQ(hetcclGetDeviceKind(&kind), hetcclSuccess);
  if (std::string(kind) != "host-strict")
    GTEST_SKIP() << "runs under HETCCL_DEVICE=host-strict (device: " << kind << ")";
  setenv("HETCCL_GPU_AWARE_MPI", "1", 1);
  hetcclComm_t comm = nullptr;
  const hetcclResult_t result = hetcclCommInitMPI(&comm, MPI_COMM_WORLD, nullptr);
  unsetenv("HETCCL_GPU_AWARE_MPI");
  EXPECT_EQ(result, hetcclInvalidArgument);
  EXPECT_EQ(comm, nullptr);
  EXPECT_NE(std::string(hetcclGetLastError(nullptr)).find("HETCCL_GPU_AWARE_MPI=1 with HETCCL_DEVICE=host-strict"),
            std::string::npos)
      << hetcclGetLastError(nullptr);
}

}  // namespace
}  // namespace hetccl_test
