// Invalid arguments: every rank makes the same bad call, which must return the documented code at
// once (a rank that went on into the collective would hang the suite, caught by the ctest
// TIMEOUT), leave a message, change no buffer, and leave the communicator usable — checked by a
// correct AllReduce right after each bad call.
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "c_api_calls.h"
#include "collective_checks.h"

namespace hetccl_test {
namespace {

const int kBadTypes[] = {42, -1, hetcclNumTypes};
const int kBadOps[] = {17, -1, hetcclNumOps};
constexpr size_t kCount = 64;  // elements per rank block

class InvalidArguments : public ::testing::Test {
 protected:
  InvalidArguments()
      : n_(world().size()),
        bytes_(kCount * sizeof(float) * static_cast<size_t>(n_)),
        send_(bytes_),
        recv_(bytes_),
        sendContents_(makeGarbage(bytes_, world().rank(), 11)),
        recvContents_(makeGarbage(bytes_, world().rank(), 12)) {
    send_.upload(sendContents_);
    recv_.upload(recvContents_);
  }

  // Runs `call` (the same on every rank), expects `want` and a message, unchanged buffers, and a
  // working communicator afterwards.  `messageComm` is whose last error to read.
  void expectRejected(const std::string& what, hetcclResult_t want, hetcclComm_t messageComm,
                      const std::function<hetcclResult_t()>& call) {
    const hetcclResult_t got = call();
    EXPECT_EQ(got, want) << what << ": got " << hetcclGetErrorString(got);
    const char* message = hetcclGetLastError(messageComm);
    EXPECT_NE(message, nullptr) << what;
    if (message != nullptr) {
      EXPECT_GT(std::strlen(message), 0u) << what << ": empty last-error message";
    }
    EXPECT_EQ(send_.download(), sendContents_) << what << ": send buffer changed";
    EXPECT_EQ(recv_.download(), recvContents_) << what << ": recv buffer changed";
    checkAllReduce(world(), {&typeInfo(hetcclInt32), hetcclSum, 61, false, 0, nullptr});
  }

  void expectInvalid(const std::string& what, const std::function<hetcclResult_t()>& call) {
    expectRejected(what, hetcclInvalidArgument, world().comm, call);
  }

  hetcclComm_t comm() const { return world().comm; }
  void* send() const { return send_.data(); }
  void* recv() const { return recv_.data(); }

  int n_;
  size_t bytes_;
  DeviceBuffer send_, recv_;
  Bytes sendContents_, recvContents_;
};

TEST_F(InvalidArguments, NullBuffersWithPositiveCount) {
  const hetcclDataType_t f = hetcclFloat32;
  expectInvalid("AllReduce null send",
                [&] { return hetcclAllReduce(nullptr, recv(), kCount, f, hetcclSum, comm(), nullptr); });
  expectInvalid("AllReduce null recv",
                [&] { return hetcclAllReduce(send(), nullptr, kCount, f, hetcclSum, comm(), nullptr); });
  expectInvalid("ReduceScatter null send",
                [&] { return hetcclReduceScatter(nullptr, recv(), kCount, f, hetcclSum, comm(), nullptr); });
  expectInvalid("ReduceScatter null recv",
                [&] { return hetcclReduceScatter(send(), nullptr, kCount, f, hetcclSum, comm(), nullptr); });
  expectInvalid("AllGather null send", [&] { return hetcclAllGather(nullptr, recv(), kCount, f, comm(), nullptr); });
  expectInvalid("AllGather null recv", [&] { return hetcclAllGather(send(), nullptr, kCount, f, comm(), nullptr); });
  // Broadcast's sendbuff and Reduce's recvbuff matter on the root only (NCCL), so only the
  // buffers every rank needs are nulled here.
  expectInvalid("Broadcast null recv", [&] { return hetcclBroadcast(send(), nullptr, kCount, f, 0, comm(), nullptr); });
  expectInvalid("Reduce null send",
                [&] { return hetcclReduce(nullptr, recv(), kCount, f, hetcclSum, 0, comm(), nullptr); });
  expectInvalid("AlltoAll null send", [&] { return hetcclAlltoAll(nullptr, recv(), kCount, f, comm(), nullptr); });
  expectInvalid("AlltoAll null recv", [&] { return hetcclAlltoAll(send(), nullptr, kCount, f, comm(), nullptr); });
  expectInvalid("Send null buffer", [&] { return hetcclSend(nullptr, kCount, f, 0, comm(), nullptr); });
  expectInvalid("Recv null buffer", [&] { return hetcclRecv(nullptr, kCount, f, 0, comm(), nullptr); });
}

TEST_F(InvalidArguments, CountZeroWithNullBuffersSucceeds) {
  const hetcclDataType_t f = hetcclFloat32;
  const hetcclComm_t c = comm();
  expectSuccess(hetcclAllReduce(nullptr, nullptr, 0, f, hetcclSum, c, nullptr), c, "AllReduce count 0");
  expectSuccess(hetcclReduceScatter(nullptr, nullptr, 0, f, hetcclMax, c, nullptr), c, "ReduceScatter count 0");
  expectSuccess(hetcclAllGather(nullptr, nullptr, 0, f, c, nullptr), c, "AllGather count 0");
  expectSuccess(hetcclBroadcast(nullptr, nullptr, 0, f, 0, c, nullptr), c, "Broadcast count 0");
  expectSuccess(hetcclReduce(nullptr, nullptr, 0, f, hetcclAvg, n_ - 1, c, nullptr), c, "Reduce count 0");
  expectSuccess(hetcclAlltoAll(nullptr, nullptr, 0, f, c, userStream()), c, "AlltoAll count 0");
  syncStream(userStream(), "count 0");
  checkAllReduce(world(), {&typeInfo(hetcclInt32), hetcclSum, 61, false, 0, nullptr});
}

// A count whose buffer (count x element size, x ranks for the gathered and scattered side)
// does not fit in size_t: rejected before either buffer is touched.
TEST_F(InvalidArguments, CountTooLargeForSizeT) {
  const hetcclDataType_t f = hetcclFloat32;
  const size_t overflowsAlone = SIZE_MAX / sizeof(float) + 1;
  expectInvalid("AllReduce count overflowing",
                [&] { return hetcclAllReduce(send(), recv(), overflowsAlone, f, hetcclSum, comm(), nullptr); });
  expectInvalid("Broadcast count overflowing",
                [&] { return hetcclBroadcast(send(), recv(), overflowsAlone, f, 0, comm(), nullptr); });
  expectInvalid("Send count overflowing", [&] { return hetcclSend(send(), overflowsAlone, f, 0, comm(), nullptr); });
  if (n_ < 2) return;
  // Fits as one rank's block, not as all of them.
  const size_t overflowsTimesRanks = SIZE_MAX / sizeof(float) / static_cast<size_t>(n_) + 1;
  expectInvalid("AllGather count overflowing with the ranks",
                [&] { return hetcclAllGather(send(), recv(), overflowsTimesRanks, f, comm(), nullptr); });
  expectInvalid("ReduceScatter count overflowing with the ranks", [&] {
    return hetcclReduceScatter(send(), recv(), overflowsTimesRanks, f, hetcclSum, comm(), nullptr);
  });
}

// Bad enum values go through c_api_calls.c: making them in C++ would be undefined behaviour.
TEST_F(InvalidArguments, BadDatatype) {
  for (int t : kBadTypes) {
    const std::string s = " datatype " + std::to_string(t);
    expectInvalid("AllReduce" + s, [&] { return cAllReduce(send(), recv(), kCount, t, hetcclSum, comm()); });
    expectInvalid("ReduceScatter" + s, [&] { return cReduceScatter(send(), recv(), kCount, t, hetcclSum, comm()); });
    expectInvalid("AllGather" + s, [&] { return cAllGather(send(), recv(), kCount, t, comm()); });
    expectInvalid("Broadcast" + s, [&] { return cBroadcast(send(), recv(), kCount, t, 0, comm()); });
    expectInvalid("Reduce" + s, [&] { return cReduce(send(), recv(), kCount, t, hetcclSum, 0, comm()); });
    expectInvalid("AlltoAll" + s, [&] { return cAlltoAll(send(), recv(), kCount, t, comm()); });
    expectInvalid("Send" + s, [&] { return cSend(send(), kCount, t, 0, comm()); });
    expectInvalid("Recv" + s, [&] { return cRecv(recv(), kCount, t, 0, comm()); });
  }
}

TEST_F(InvalidArguments, BadReductionOp) {
  const int f = hetcclFloat32;
  for (int op : kBadOps) {
    const std::string s = " op " + std::to_string(op);
    expectInvalid("AllReduce" + s, [&] { return cAllReduce(send(), recv(), kCount, f, op, comm()); });
    expectInvalid("ReduceScatter" + s, [&] { return cReduceScatter(send(), recv(), kCount, f, op, comm()); });
    expectInvalid("Reduce" + s, [&] { return cReduce(send(), recv(), kCount, f, op, 0, comm()); });
  }
}

TEST_F(InvalidArguments, RootOutOfRange) {
  const hetcclDataType_t f = hetcclFloat32;
  for (int root : {-1, n_, n_ + 5}) {
    const std::string s = " root " + std::to_string(root);
    expectInvalid("Broadcast" + s, [&] { return hetcclBroadcast(send(), recv(), kCount, f, root, comm(), nullptr); });
    expectInvalid("Reduce" + s,
                  [&] { return hetcclReduce(send(), recv(), kCount, f, hetcclSum, root, comm(), nullptr); });
  }
}

TEST_F(InvalidArguments, PeerOutOfRange) {
  const hetcclDataType_t f = hetcclFloat32;
  for (int peer : {-1, n_}) {
    const std::string s = " peer " + std::to_string(peer);
    expectInvalid("Send" + s, [&] { return hetcclSend(send(), kCount, f, peer, comm(), nullptr); });
    expectInvalid("Recv" + s, [&] { return hetcclRecv(recv(), kCount, f, peer, comm(), nullptr); });
  }
}

// Inside a group the bad call is rejected when issued; the group then ends without running
// anything harmful (GroupEnd may report the error again) and the communicator stays usable.
TEST_F(InvalidArguments, BadCallInsideGroup) {
  EXPECT_EQ(hetcclGroupStart(), hetcclSuccess);
  const hetcclResult_t issued = hetcclSend(send(), kCount, hetcclFloat32, n_, comm(), nullptr);
  EXPECT_EQ(issued, hetcclInvalidArgument) << "Send to peer nranks inside a group";
  const hetcclResult_t ended = hetcclGroupEnd();
  EXPECT_TRUE(ended == hetcclSuccess || ended == hetcclInvalidArgument)
      << "GroupEnd after a rejected call returned " << hetcclGetErrorString(ended);
  checkAllReduce(world(), {&typeInfo(hetcclInt32), hetcclSum, 61, false, 0, nullptr});
}

TEST_F(InvalidArguments, NullCommunicator) {
  const hetcclDataType_t f = hetcclFloat32;
  auto nullComm = [&](const std::string& what, const std::function<hetcclResult_t()>& call) {
    expectRejected(what, hetcclInvalidArgument, nullptr, call);
  };
  nullComm("AllReduce comm NULL",
           [&] { return hetcclAllReduce(send(), recv(), kCount, f, hetcclSum, nullptr, nullptr); });
  nullComm("Broadcast comm NULL", [&] { return hetcclBroadcast(send(), recv(), kCount, f, 0, nullptr, nullptr); });
  nullComm("Send comm NULL", [&] { return hetcclSend(send(), kCount, f, 0, nullptr, nullptr); });
  nullComm("Recv comm NULL", [&] { return hetcclRecv(recv(), kCount, f, 0, nullptr, nullptr); });
  int value = 0;
  nullComm("CommCount comm NULL", [&] { return hetcclCommCount(nullptr, &value); });
  nullComm("CommUserRank comm NULL", [&] { return hetcclCommUserRank(nullptr, &value); });
  expectInvalid("CommCount NULL out", [&] { return hetcclCommCount(comm(), nullptr); });
  expectInvalid("CommUserRank NULL out", [&] { return hetcclCommUserRank(comm(), nullptr); });
}

// A handle whose communicator was destroyed is rejected, not dereferenced.
TEST_F(InvalidArguments, DestroyedCommunicator) {
  MPI_Comm dup = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  hetcclComm_t dead = nullptr;
  EXPECT_EQ(hetcclCommInitMPI(&dead, dup, nullptr), hetcclSuccess);
  EXPECT_EQ(hetcclCommDestroy(dead), hetcclSuccess);
  MPI_Comm_free(&dup);
  // Its last error is not readable through the dead handle: read the thread's (comm NULL).
  expectRejected("AllReduce on a destroyed comm", hetcclInvalidArgument, nullptr,
                 [&] { return hetcclAllReduce(send(), recv(), kCount, hetcclFloat32, hetcclSum, dead, nullptr); });
  expectRejected("Send on a destroyed comm", hetcclInvalidArgument, nullptr,
                 [&] { return hetcclSend(send(), kCount, hetcclFloat32, 0, dead, nullptr); });
  int value = 0;
  expectRejected("CommCount on a destroyed comm", hetcclInvalidArgument, nullptr,
                 [&] { return hetcclCommCount(dead, &value); });
}

TEST_F(InvalidArguments, GroupEndWithoutStart) {
  expectRejected("GroupEnd without GroupStart", hetcclInvalidUsage, nullptr, [] { return hetcclGroupEnd(); });
}

TEST_F(InvalidArguments, CommInitMPIArguments) {
  hetcclComm_t c = nullptr;
  expectRejected("CommInitMPI NULL out-pointer", hetcclInvalidArgument, nullptr,
                 [] { return hetcclCommInitMPI(nullptr, MPI_COMM_WORLD, nullptr); });
  expectRejected("CommInitMPI MPI_COMM_NULL", hetcclInvalidArgument, nullptr,
                 [&] { return hetcclCommInitMPI(&c, MPI_COMM_NULL, nullptr); });
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.magic = 0xDEADBEEFu;
  expectRejected("CommInitMPI config with wrong magic", hetcclInvalidArgument, nullptr,
                 [&] { return hetcclCommInitMPI(&c, MPI_COMM_WORLD, &config); });
}

TEST_F(InvalidArguments, MemAllocNullOutPointer) {
  expectRejected("MemAlloc NULL out-pointer", hetcclInvalidArgument, nullptr,
                 [] { return hetcclMemAlloc(nullptr, 64); });
}

// Each code has a string of its own: not empty, not the text every unknown value gets, and
// not another code's (a code that fell through to a shared branch would repeat one).
TEST(ErrorStrings, EveryCodeHasAName) {
  const char* unknownName = cGetErrorString(1000);
  const std::string unknown = unknownName ? unknownName : "";
  EXPECT_FALSE(unknown.empty());
  for (int code : {-1, static_cast<int>(hetcclNumResults)}) {
    const char* s = cGetErrorString(code);
    EXPECT_NE(s, nullptr) << "out-of-range code " << code;
    if (s != nullptr) {
      EXPECT_EQ(s, unknown) << "out-of-range code " << code;
    }
  }
  std::map<std::string, int> codeOfName;
  for (int code = 0; code < hetcclNumResults; ++code) {
    const char* s = hetcclGetErrorString(static_cast<hetcclResult_t>(code));
    EXPECT_NE(s, nullptr) << "code " << code;
    if (s == nullptr) continue;
    EXPECT_GT(std::strlen(s), 0u) << "code " << code;
    EXPECT_NE(s, unknown) << "code " << code << " has no name of its own";
    const auto [named, fresh] = codeOfName.emplace(s, code);
    EXPECT_TRUE(fresh) << "codes " << named->second << " and " << code << " share the name \"" << s << "\"";
  }
  EXPECT_NE(hetcclGetLastError(world().comm), nullptr);
  EXPECT_NE(hetcclGetLastError(nullptr), nullptr);
}

}  // namespace
}  // namespace hetccl_test
