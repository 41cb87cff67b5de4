// Communicators made by their members from a unique id (hetcclGetUniqueId, hetcclCommInitRank):
// groups met in opposite orders on different ranks, made from two threads at once, many in a
// row, non-blocking, aborted while waiting for members, and inconsistent arguments.  Ids are
// passed over MPI here only because the test has MPI at hand; no creation needs a process
// outside its group.
#include <atomic>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <mpi.h>

#include "hetccl/hetccl.h"

namespace {

int worldRank() {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  return rank;
}
int worldSize() {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  return size;
}

class UniqueId : public ::testing::Test {
 protected:
  // Every process, at once, as a program does right after MPI_Init.
  void SetUp() override { ASSERT_EQ(hetcclJobInit(), hetcclSuccess) << hetcclGetLastError(nullptr); }
};

// Each rank's id for the groups it is the first member of, in slot `slot` of `perRank` slots,
// gathered so that every rank can look up any group's (the test's stand-in for a store).
std::vector<hetcclUniqueId> gatherIds(const std::vector<bool>& makes) {
  std::vector<hetcclUniqueId> mine(makes.size()), all(makes.size() * size_t(worldSize()));
  for (size_t slot = 0; slot < makes.size(); ++slot)
    if (makes[slot]) {
      EXPECT_EQ(hetcclGetUniqueId(&mine[slot]), hetcclSuccess) << hetcclGetLastError(nullptr);
    }
  const int bytes = int(sizeof(hetcclUniqueId) * makes.size());
  MPI_Allgather(mine.data(), bytes, MPI_BYTE, all.data(), bytes, MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

// An int32 all-reduce over `comm` whose members have world ranks `members`: exact sums.
void expectSums(hetcclComm_t comm, const std::vector<int>& members, const std::string& what) {
  constexpr size_t kCount = 257;
  std::vector<int32_t> values(kCount), expected(kCount, 0);
  for (size_t i = 0; i < kCount; ++i) values[i] = worldRank() * 1000 + int32_t(i);
  for (int member : members)
    for (size_t i = 0; i < kCount; ++i) expected[i] += member * 1000 + int32_t(i);
  void* buffer = nullptr;
  ASSERT_EQ(hetcclMemAlloc(&buffer, kCount * 4), hetcclSuccess);
  ASSERT_EQ(hetcclMemcpyToDevice(buffer, values.data(), kCount * 4), hetcclSuccess);
  ASSERT_EQ(hetcclAllReduce(buffer, buffer, kCount, hetcclInt32, hetcclSum, comm, nullptr), hetcclSuccess)
      << what << ": " << hetcclGetLastError(comm);
  ASSERT_EQ(hetcclStreamSynchronize(nullptr), hetcclSuccess);
  ASSERT_EQ(hetcclMemcpyFromDevice(values.data(), buffer, kCount * 4), hetcclSuccess);
  EXPECT_EQ(values, expected) << what;
  EXPECT_EQ(hetcclMemFree(buffer), hetcclSuccess);
}

hetcclComm_t create(const hetcclUniqueId& id, int nranks, int rank, const std::string& what) {
  hetcclComm_t comm = nullptr;
  EXPECT_EQ(hetcclCommInitRank(&comm, nranks, id, rank, nullptr), hetcclSuccess)
      << what << ": " << hetcclGetLastError(nullptr);
  return comm;
}

// The pattern: pairs {2i, 2i+1} and {i, i + n/2}, the first half meeting the first
// pairs first, the second half the second pairs first (deadlock-free, as with NCCL).
TEST_F(UniqueId, PairsMetInOppositeOrders) {
  const int n = worldSize(), me = worldRank();
  if (n < 4 || n % 2) GTEST_SKIP() << "needs an even number of ranks >= 4";
  const int half = n / 2;
  const std::vector<hetcclUniqueId> ids = gatherIds({me % 2 == 0, me < half});
  const int firstMaker = me & ~1, secondMaker = me % half;
  auto firstPair = [&] {
    hetcclComm_t comm = create(ids[size_t(firstMaker) * 2], 2, me % 2, "pair {2i, 2i+1}");
    if (comm) expectSums(comm, {firstMaker, firstMaker + 1}, "pair {2i, 2i+1}");
    if (comm) {
      EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
    }
  };
  auto secondPair = [&] {
    hetcclComm_t comm = create(ids[size_t(secondMaker) * 2 + 1], 2, me < half ? 0 : 1, "pair {i, i+n/2}");
    if (comm) expectSums(comm, {secondMaker, secondMaker + half}, "pair {i, i+n/2}");
    if (comm) {
      EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
    }
  };
  if (me < half) {
    firstPair();
    secondPair();
  } else {
    secondPair();
    firstPair();
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Two creations at once on every rank, from two threads: the world and this rank's pair.
TEST_F(UniqueId, TwoThreadsCreateTwoGroupsAtOnce) {
  const int n = worldSize(), me = worldRank();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  const int pairMaker = me & ~1;
  const bool inPair = pairMaker + 1 < n;
  const std::vector<hetcclUniqueId> ids = gatherIds({me == 0, me % 2 == 0 && me + 1 < n});
  hetcclComm_t world = nullptr, pair = nullptr;
  std::thread other([&] { world = create(ids[0], n, me, "world (thread)"); });
  if (inPair) pair = create(ids[size_t(pairMaker) * 2 + 1], 2, me % 2, "pair (main thread)");
  other.join();
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  if (world) expectSums(world, everyone, "world made on a second thread");
  if (pair) expectSums(pair, {pairMaker, pairMaker + 1}, "pair made beside it");
  if (pair) {
    EXPECT_EQ(hetcclCommDestroy(pair), hetcclSuccess);
  }
  if (world) {
    EXPECT_EQ(hetcclCommDestroy(world), hetcclSuccess);
  }
}

// Many communicators over a job's life: made and destroyed in a row, a few kept alive.
TEST_F(UniqueId, HundredsInARow) {
  const int n = worldSize(), me = worldRank();
  std::vector<hetcclComm_t> kept;
  for (int round = 0; round < 100; ++round) {
    hetcclUniqueId id;
    if (me == 0) {
      ASSERT_EQ(hetcclGetUniqueId(&id), hetcclSuccess);
    }
    MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    hetcclComm_t comm = create(id, n, me, "round " + std::to_string(round));
    ASSERT_NE(comm, nullptr);
    if (round % 25 == 0)
      kept.push_back(comm);
    else
      ASSERT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
  }
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  for (hetcclComm_t comm : kept) expectSums(comm, everyone, "a communicator kept from earlier rounds");
  for (hetcclComm_t comm : kept) EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
}

// config.blocking = 0: in progress at once, then success; operations refused meanwhile.
TEST_F(UniqueId, NonBlockingCreationFinishesInTheBackground) {
  const int n = worldSize(), me = worldRank();
  hetcclUniqueId id;
  if (me == 0) {
    ASSERT_EQ(hetcclGetUniqueId(&id), hetcclSuccess);
  }
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  // The last rank comes late, so that the others see their creation in progress.
  if (me == n - 1 && n > 1) std::this_thread::sleep_for(std::chrono::milliseconds(200));
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  hetcclComm_t comm = nullptr;
  ASSERT_EQ(hetcclCommInitRank(&comm, n, id, me, &config), hetcclInProgress);
  ASSERT_NE(comm, nullptr);
  int count = 0;
  EXPECT_EQ(hetcclCommCount(comm, &count), hetcclSuccess);
  EXPECT_EQ(count, n);
  hetcclResult_t state = hetcclInProgress;
  bool refusedWhileInProgress = false;
  for (int polls = 0; polls < 30000 && state == hetcclInProgress; ++polls) {
    ASSERT_EQ(hetcclCommGetAsyncError(comm, &state), hetcclSuccess);
    if (state == hetcclInProgress && !refusedWhileInProgress && me < n - 1) {
      int value = 1;
      EXPECT_EQ(hetcclAllReduce(&value, &value, 1, hetcclInt32, hetcclSum, comm, nullptr), hetcclInvalidUsage);
      EXPECT_NE(std::string(hetcclGetLastError(nullptr)).find("still being created"), std::string::npos);
      refusedWhileInProgress = true;
    }
    if (state == hetcclInProgress) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_EQ(state, hetcclSuccess) << hetcclGetLastError(comm);
  if (n > 1 && me < n - 1) {
    EXPECT_TRUE(refusedWhileInProgress);
  }
  std::vector<int> everyone;
  for (int r = 0; r < n; ++r) everyone.push_back(r);
  expectSums(comm, everyone, "the non-blocking communicator once made");
  EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
}

// A creation whose other member never comes: the abort stops it and returns at once.
TEST_F(UniqueId, AbortStopsACreationWaitingForMembers) {
  const int me = worldRank();
  if (worldSize() < 2) GTEST_SKIP() << "needs 2 ranks (a communicator of 2 in a job of 1 is refused)";
  if (me == 0) {
    hetcclUniqueId id;
    ASSERT_EQ(hetcclGetUniqueId(&id), hetcclSuccess);
    hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    hetcclComm_t comm = nullptr;
    ASSERT_EQ(hetcclCommInitRank(&comm, 2, id, 0, &config), hetcclInProgress);
    hetcclResult_t state = hetcclSuccess;
    ASSERT_EQ(hetcclCommGetAsyncError(comm, &state), hetcclSuccess);
    EXPECT_EQ(state, hetcclInProgress);
    const auto start = std::chrono::steady_clock::now();
    EXPECT_EQ(hetcclCommAbort(comm), hetcclSuccess);
    EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5.0);
    int count = 0;
    EXPECT_EQ(hetcclCommCount(comm, &count), hetcclInvalidArgument) << "freed by the abort";
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

// Two processes claiming rank 0 of one id: both fail, with the same message, and nobody hangs.
TEST_F(UniqueId, ARankGivenTwiceFailsEveryMember) {
  const int n = worldSize(), me = worldRank();
  if (n < 2) GTEST_SKIP() << "needs 2 ranks";
  hetcclUniqueId id;
  if (me == 0) {
    ASSERT_EQ(hetcclGetUniqueId(&id), hetcclSuccess);
  }
  MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
  if (me < 2) {
    hetcclComm_t comm = nullptr;
    EXPECT_EQ(hetcclCommInitRank(&comm, 2, id, 0, nullptr), hetcclInvalidArgument);
    EXPECT_EQ(comm, nullptr);
    EXPECT_NE(std::string(hetcclGetLastError(nullptr)).find("given by two processes"), std::string::npos)
        << hetcclGetLastError(nullptr);
  }
  MPI_Barrier(MPI_COMM_WORLD);
}

TEST_F(UniqueId, ForeignIdsAndBadArgumentsAreRefused) {
  hetcclUniqueId foreign;
  std::memset(&foreign, 0x5a, sizeof foreign);
  hetcclComm_t comm = nullptr;
  EXPECT_EQ(hetcclCommInitRank(&comm, 1, foreign, 0, nullptr), hetcclInvalidArgument);
  EXPECT_NE(std::string(hetcclGetLastError(nullptr)).find("unique id"), std::string::npos);
  hetcclUniqueId id;
  ASSERT_EQ(hetcclGetUniqueId(&id), hetcclSuccess);
  EXPECT_EQ(hetcclCommInitRank(&comm, 2, id, 2, nullptr), hetcclInvalidArgument);
  EXPECT_EQ(hetcclCommInitRank(nullptr, 1, id, 0, nullptr), hetcclInvalidArgument);
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.blocking = 7;
  EXPECT_EQ(hetcclCommInitRank(&comm, 1, id, 0, &config), hetcclInvalidArgument);
  EXPECT_EQ(hetcclCommInitRank(&comm, worldSize() + 1, id, 0, nullptr), hetcclInvalidUsage);
  EXPECT_NE(std::string(hetcclGetLastError(nullptr)).find("mpirun"), std::string::npos);
  // One rank of one: made by the maker alone.
  EXPECT_EQ(hetcclCommInitRank(&comm, 1, id, 0, nullptr), hetcclSuccess) << hetcclGetLastError(nullptr);
  if (comm) expectSums(comm, {worldRank()}, "a communicator of one");
  if (comm) {
    EXPECT_EQ(hetcclCommDestroy(comm), hetcclSuccess);
  }
}

}  // namespace
