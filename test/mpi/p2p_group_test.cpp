// Point-to-point operations and group semantics.  Patterns are issued in an order that would
// deadlock if the library ran the operations one by one (all sends before any receive), so
// they pass only if a group really runs its point-to-point operations concurrently.
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "collective_checks.h"

namespace hetccl_test {
namespace {

constexpr hetcclRedOp_t kMoveOnly = hetcclMax;  // arbitrary bits as input

// The bytes this rank receives from `from` when it sends `out` to `to`, over MPI.
Bytes mpiSendrecv(const Bytes& out, int to, size_t recvBytes, int from, MPI_Comm comm) {
  Bytes in(recvBytes);
  MPI_Sendrecv(out.data(), static_cast<int>(out.size()), MPI_BYTE, to, 7, in.data(), static_cast<int>(recvBytes),
               MPI_BYTE, from, 7, comm, MPI_STATUS_IGNORE);
  return in;
}

std::string p2pContext(const char* pattern, const TypeInfo& t, size_t count) {
  return describe(pattern, &t, nullptr, count, false, -1, nullptr, world());
}

// Each rank sends `count` elements to rank+1 and receives from rank-1 in one group; with one
// rank that is a send to and a receive from itself.
void checkRing(const TypeInfo& t, size_t count, hetcclStream_t stream) {
  const CommPair& w = world();
  const int n = w.size(), rank = w.rank();
  const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
  const std::string ctx = describe("SendRecvRing", &t, nullptr, count, false, -1, stream, w);
  const size_t bytes = count * t.size;
  const uint64_t seed = nextSeed();
  const Bytes input = makeInput(t, kMoveOnly, n, rank, count, seed);
  const Bytes expected = mpiSendrecv(input, next, bytes, prev, w.mpi);

  DeviceBuffer send(bytes), recv(bytes);
  send.upload(input);
  recv.upload(makeGarbage(bytes, rank, seed));
  expectSuccess(hetcclGroupStart(), nullptr, ctx + " GroupStart");
  expectSuccess(hetcclSend(send.data(), count, t.type, next, w.comm, stream), w.comm, ctx + " Send");
  expectSuccess(hetcclRecv(recv.data(), count, t.type, prev, w.comm, stream), w.comm, ctx + " Recv");
  expectSuccess(hetcclGroupEnd(), w.comm, ctx + " GroupEnd");
  syncStream(stream, ctx);
  expectSameBits(t, expected, recv.download(), ctx);
  expectSameBits(t, input, send.download(), ctx + " (send buffer modified)");
  EXPECT_TRUE(send.guardsIntact() && recv.guardsIntact()) << ctx << ": write outside a buffer";
}

TEST(SendRecvGroup, RingEveryTypeSmallAndMedium) {
  size_t i = 0;
  for (const TypeInfo& t : allTypes())
    for (size_t count : {size_t{1}, size_t{61}, size_t{1021}}) {
      checkRing(t, count, i++ % 2 ? userStream() : nullptr);
    }
}

TEST(SendRecvGroup, RingCountZeroAndLarge) {
  const TypeInfo& f = typeInfo(hetcclFloat32);
  for (size_t count : {size_t{0}, size_t{4099}, (size_t{1} << 20) + 3}) checkRing(f, count, nullptr);
  checkRing(typeInfo(hetcclInt8), (size_t{3} << 20) + 1, userStream());
}

// Counts per (sender, receiver) pair, different for every pair and zero for some once n >= 3.
size_t pairCount(int from, int to) { return static_cast<size_t>((from + 2 * to) % 4) * 211 + (from == to ? 5 : 0); }

// Every rank sends to and receives from every other rank (and itself if `includeSelf`) in one
// group, with a different count per pair: an all-to-all built from point-to-point operations.
void checkPairwiseExchange(const TypeInfo& t, bool includeSelf) {
  const CommPair& w = world();
  const int n = w.size(), rank = w.rank();
  const std::string ctx =
      describe(includeSelf ? "PairwiseExchangeWithSelf" : "PairwiseExchange", &t, nullptr, 0, false, -1, nullptr, w);
  const uint64_t seed = nextSeed();
  std::vector<size_t> sendOffset(n + 1, 0), recvOffset(n + 1, 0);
  for (int p = 0; p < n; ++p) {
    const bool skip = p == rank && !includeSelf;
    sendOffset[p + 1] = sendOffset[p] + (skip ? 0 : pairCount(rank, p) * t.size);
    recvOffset[p + 1] = recvOffset[p] + (skip ? 0 : pairCount(p, rank) * t.size);
  }
  const Bytes input = makeInput(t, kMoveOnly, n, rank, sendOffset[n] / t.size, seed);
  Bytes expected(recvOffset[n]);
  for (int k = 0; k < n; ++k) {  // step k: send to rank+k, receive from rank-k
    if (k == 0 && !includeSelf) continue;
    const int to = (rank + k) % n, from = (rank + n - k) % n;
    const Bytes block(input.begin() + static_cast<std::ptrdiff_t>(sendOffset[to]),
                      input.begin() + static_cast<std::ptrdiff_t>(sendOffset[to + 1]));
    const Bytes got = mpiSendrecv(block, to, recvOffset[from + 1] - recvOffset[from], from, w.mpi);
    std::copy(got.begin(), got.end(), expected.begin() + static_cast<std::ptrdiff_t>(recvOffset[from]));
  }

  DeviceBuffer send(sendOffset[n]), recv(recvOffset[n]);
  send.upload(input);
  recv.upload(makeGarbage(recvOffset[n], rank, seed));
  expectSuccess(hetcclGroupStart(), nullptr, ctx + " GroupStart");
  for (int p = 0; p < n; ++p) {  // every send first: sequential execution would deadlock
    if (p == rank && !includeSelf) continue;
    expectSuccess(hetcclSend(send.at(sendOffset[p]), pairCount(rank, p), t.type, p, w.comm, nullptr), w.comm,
                  ctx + " Send to " + std::to_string(p));
  }
  for (int p = n - 1; p >= 0; --p) {
    if (p == rank && !includeSelf) continue;
    expectSuccess(hetcclRecv(recv.at(recvOffset[p]), pairCount(p, rank), t.type, p, w.comm, nullptr), w.comm,
                  ctx + " Recv from " + std::to_string(p));
  }
  expectSuccess(hetcclGroupEnd(), w.comm, ctx + " GroupEnd");
  expectSameBits(t, expected, recv.download(), ctx);
  expectSameBits(t, input, send.download(), ctx + " (send buffer modified)");
  EXPECT_TRUE(send.guardsIntact() && recv.guardsIntact()) << ctx << ": write outside a buffer";
}

TEST(SendRecvGroup, PairwiseExchangeDifferentCounts) {
  checkPairwiseExchange(typeInfo(hetcclInt32), false);
  checkPairwiseExchange(typeInfo(hetcclFloat16), false);
}

TEST(SendRecvGroup, PairwiseExchangeIncludingSelf) { checkPairwiseExchange(typeInfo(hetcclFloat64), true); }

// Several operations to the same peer in one group are matched in the order they were issued.
TEST(SendRecvGroup, SeveralMessagesToOnePeerKeepOrder) {
  const CommPair& w = world();
  const int n = w.size(), rank = w.rank();
  const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
  const TypeInfo& t = typeInfo(hetcclUint32);
  const std::vector<size_t> counts = {3, 0, 1021, 64};
  std::vector<std::unique_ptr<DeviceBuffer>> sends, recvs;
  std::vector<Bytes> inputs, expected;
  for (size_t count : counts) {
    const uint64_t seed = nextSeed();
    inputs.push_back(makeInput(t, kMoveOnly, n, rank, count, seed));
    expected.push_back(mpiSendrecv(inputs.back(), next, count * t.size, prev, w.mpi));
    sends.push_back(std::make_unique<DeviceBuffer>(count * t.size));
    recvs.push_back(std::make_unique<DeviceBuffer>(count * t.size));
    sends.back()->upload(inputs.back());
  }
  const std::string ctx = p2pContext("SeveralMessagesToOnePeer", t, 0);
  expectSuccess(hetcclGroupStart(), nullptr, ctx);
  for (size_t k = 0; k < counts.size(); ++k)
    expectSuccess(hetcclSend(sends[k]->data(), counts[k], t.type, next, w.comm, nullptr), w.comm, ctx);
  for (size_t k = 0; k < counts.size(); ++k)
    expectSuccess(hetcclRecv(recvs[k]->data(), counts[k], t.type, prev, w.comm, nullptr), w.comm, ctx);
  expectSuccess(hetcclGroupEnd(), w.comm, ctx);
  for (size_t k = 0; k < counts.size(); ++k)
    expectSameBits(t, expected[k], recvs[k]->download(), ctx + " message " + std::to_string(k));
}

TEST(SendRecvGroup, CountZeroWithAndWithoutBuffers) {
  const CommPair& w = world();
  const int n = w.size(), rank = w.rank();
  const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
  DeviceBuffer buffer(16);
  for (bool nullBuffers : {false, true}) {
    void* p = nullBuffers ? nullptr : buffer.data();
    const std::string ctx = std::string("count-0 send/recv, ") + (nullBuffers ? "null" : "valid") + " buffers";
    expectSuccess(hetcclGroupStart(), nullptr, ctx);
    expectSuccess(hetcclSend(p, 0, hetcclFloat32, next, w.comm, nullptr), w.comm, ctx + " Send");
    expectSuccess(hetcclRecv(p, 0, hetcclFloat32, prev, w.comm, nullptr), w.comm, ctx + " Recv");
    expectSuccess(hetcclGroupEnd(), w.comm, ctx + " GroupEnd");
  }
  EXPECT_TRUE(buffer.guardsIntact());
}

// NCCL allows a rank to send to itself inside a group.
TEST(SendRecvGroup, SelfSendRecv) {
  const CommPair& w = world();
  const int rank = w.rank();
  for (const TypeInfo* t : {&typeInfo(hetcclInt8), &typeInfo(hetcclBfloat16)}) {
    for (size_t count : {size_t{1}, size_t{4099}}) {
      const std::string ctx = p2pContext("SelfSendRecv", *t, count);
      const uint64_t seed = nextSeed();
      const Bytes input = makeInput(*t, kMoveOnly, w.size(), rank, count, seed);
      DeviceBuffer send(input.size()), recv(input.size());
      send.upload(input);
      recv.upload(makeGarbage(input.size(), rank, seed));
      expectSuccess(hetcclGroupStart(), nullptr, ctx);
      // The receive first: the order within a group must not matter.
      expectSuccess(hetcclRecv(recv.data(), count, t->type, rank, w.comm, nullptr), w.comm, ctx + " Recv");
      expectSuccess(hetcclSend(send.data(), count, t->type, rank, w.comm, nullptr), w.comm, ctx + " Send");
      expectSuccess(hetcclGroupEnd(), w.comm, ctx + " GroupEnd");
      expectSameBits(*t, input, recv.download(), ctx);
    }
  }
}

// A collective and point-to-point operations in one group both complete correctly.
TEST(SendRecvGroup, AllReduceAndSendRecvInOneGroup) {
  const CommPair& w = world();
  const int n = w.size(), rank = w.rank();
  const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
  const TypeInfo& f = typeInfo(hetcclFloat32);
  const size_t count = 4099;
  const std::string ctx = p2pContext("AllReduce+SendRecv group", f, count);
  const uint64_t seed = nextSeed();
  const Bytes reduceInput = makeInput(f, hetcclSum, n, rank, count, seed);
  const Bytes reduceExpected = referenceAllReduce(f, hetcclSum, reduceInput, count, w.mpi);
  const Bytes p2pInput = makeInput(f, kMoveOnly, n, rank, count, seed + 1000);
  const Bytes p2pExpected = mpiSendrecv(p2pInput, next, p2pInput.size(), prev, w.mpi);

  DeviceBuffer reduceSend(reduceInput.size()), reduceRecv(reduceInput.size());
  DeviceBuffer p2pSend(p2pInput.size()), p2pRecv(p2pInput.size());
  reduceSend.upload(reduceInput);
  p2pSend.upload(p2pInput);
  expectSuccess(hetcclGroupStart(), nullptr, ctx);
  expectSuccess(hetcclSend(p2pSend.data(), count, f.type, next, w.comm, nullptr), w.comm, ctx + " Send");
  expectSuccess(hetcclAllReduce(reduceSend.data(), reduceRecv.data(), count, f.type, hetcclSum, w.comm, nullptr),
                w.comm, ctx + " AllReduce");
  expectSuccess(hetcclRecv(p2pRecv.data(), count, f.type, prev, w.comm, nullptr), w.comm, ctx + " Recv");
  expectSuccess(hetcclGroupEnd(), w.comm, ctx + " GroupEnd");
  expectSameBits(f, reduceExpected, reduceRecv.download(), ctx + " (AllReduce result)");
  expectSameBits(f, p2pExpected, p2pRecv.download(), ctx + " (Recv result)");
}

// Groups nest: only the outermost GroupEnd runs the operations, so a send issued in an inner
// group and its receive issued after the inner GroupEnd still run together.
TEST(SendRecvGroup, NestedGroupsRunAtOutermostEnd) {
  const CommPair& w = world();
  const int n = w.size(), rank = w.rank();
  const int next = (rank + 1) % n, prev = (rank + n - 1) % n;
  const TypeInfo& t = typeInfo(hetcclInt64);
  const size_t count = 1021;
  const std::string ctx = p2pContext("NestedGroups", t, count);
  const uint64_t seed = nextSeed();
  const Bytes input = makeInput(t, kMoveOnly, n, rank, count, seed);
  const Bytes expected = mpiSendrecv(input, next, input.size(), prev, w.mpi);
  DeviceBuffer send(input.size()), recv(input.size());
  send.upload(input);
  expectSuccess(hetcclGroupStart(), nullptr, ctx + " outer GroupStart");
  expectSuccess(hetcclGroupStart(), nullptr, ctx + " inner GroupStart");
  expectSuccess(hetcclSend(send.data(), count, t.type, next, w.comm, nullptr), w.comm, ctx + " Send");
  expectSuccess(hetcclGroupEnd(), nullptr, ctx + " inner GroupEnd");
  expectSuccess(hetcclRecv(recv.data(), count, t.type, prev, w.comm, nullptr), w.comm, ctx + " Recv");
  expectSuccess(hetcclGroupEnd(), w.comm, ctx + " outer GroupEnd");
  expectSameBits(t, expected, recv.download(), ctx);
}

// Outside a group a send or receive completes before it returns, so pairs of ranks order them
// (even rank sends first, odd rank receives first).  With an odd rank count the last rank idles.
TEST(SendRecvOutsideGroup, OrderedPairs) {
  const CommPair& w = world();
  const int n = w.size(), rank = w.rank();
  const int partner = rank % 2 == 0 ? rank + 1 : rank - 1;
  const TypeInfo& t = typeInfo(hetcclFloat32);
  for (size_t count : {size_t{61}, (size_t{1} << 20) + 3}) {
    const uint64_t seed = nextSeed();
    if (partner >= n) continue;  // point-to-point only: idling here cannot desynchronise anyone
    const std::string ctx = p2pContext("OrderedPairs", t, count);
    const Bytes input = makeInput(t, kMoveOnly, n, rank, count, seed);
    const Bytes expected = mpiSendrecv(input, partner, input.size(), partner, w.mpi);
    DeviceBuffer send(input.size()), recv(input.size());
    send.upload(input);
    if (rank % 2 == 0) {
      expectSuccess(hetcclSend(send.data(), count, t.type, partner, w.comm, nullptr), w.comm, ctx + " Send");
      expectSuccess(hetcclRecv(recv.data(), count, t.type, partner, w.comm, userStream()), w.comm, ctx + " Recv");
    } else {
      expectSuccess(hetcclRecv(recv.data(), count, t.type, partner, w.comm, nullptr), w.comm, ctx + " Recv");
      expectSuccess(hetcclSend(send.data(), count, t.type, partner, w.comm, userStream()), w.comm, ctx + " Send");
    }
    syncStream(userStream(), ctx);
    expectSameBits(t, expected, recv.download(), ctx);
  }
}

}  // namespace
}  // namespace hetccl_test
