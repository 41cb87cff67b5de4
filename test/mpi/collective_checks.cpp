#include "collective_checks.h"

#include "forced_algorithm.h"

namespace hetccl_test {
namespace {

// Data-movement collectives get arbitrary bits (the input rule for max has no restriction).
constexpr hetcclRedOp_t kMoveOnly = hetcclMax;

// Checks common to every collective once the call has returned.
void expectUntouchedInput(const DeviceBuffer& send, const Bytes& input, const TypeInfo& type,
                          const std::string& context) {
  expectSameBits(type, input, send.download(0, input.size()), context + " (send buffer modified)");
}

void expectGuards(const DeviceBuffer& buffer, const char* which, const std::string& context) {
  EXPECT_TRUE(buffer.guardsIntact()) << context << ": write outside the " << which << " buffer";
}

}  // namespace

void checkAllReduce(const CommPair& comm, const CollectiveCase& c) {
  const TypeInfo& t = *c.type;
  const std::string ctx = describe("AllReduce", &t, opName(c.op), c.count, c.inPlace, -1, c.stream, comm);
  const int n = comm.size(), rank = comm.rank();
  const uint64_t seed = nextSeed();
  const size_t bytes = c.count * t.size;
  const Bytes input = makeInput(t, c.op, n, rank, c.count, seed);
  const Bytes expected = referenceAllReduce(t, c.op, input, c.count, comm.mpi);

  DeviceBuffer send(bytes), recv(c.inPlace ? 0 : bytes);
  send.upload(input);
  recv.upload(makeGarbage(recv.bytes(), rank, seed));
  void* out = c.inPlace ? send.data() : recv.data();
  const hetcclResult_t r = hetcclAllReduce(send.data(), out, c.count, t.type, c.op, comm.comm, c.stream);
  expectSuccess(r, comm.comm, ctx);
  syncStream(c.stream, ctx);
  if (r != hetcclSuccess) return;  // local only: nothing collective follows
  expectForcedAlgorithmRan(comm, CollectiveKind::AllReduce, ctx);

  expectSameBits(t, expected, c.inPlace ? send.download() : recv.download(), ctx);
  if (!c.inPlace) expectUntouchedInput(send, input, t, ctx);
  expectGuards(send, "send", ctx);
  expectGuards(recv, "recv", ctx);
}

void checkReduceScatter(const CommPair& comm, const CollectiveCase& c) {
  const TypeInfo& t = *c.type;
  const std::string ctx = describe("ReduceScatter", &t, opName(c.op), c.count, c.inPlace, -1, c.stream, comm);
  const int n = comm.size(), rank = comm.rank();
  const uint64_t seed = nextSeed();
  const size_t recvBytes = c.count * t.size;
  const size_t sendBytes = recvBytes * static_cast<size_t>(n);
  const Bytes input = makeInput(t, c.op, n, rank, c.count * static_cast<size_t>(n), seed);
  const Bytes expected = referenceReduceScatter(t, c.op, input, c.count, comm.mpi);

  DeviceBuffer send(sendBytes), recv(c.inPlace ? 0 : recvBytes);
  send.upload(input);
  recv.upload(makeGarbage(recv.bytes(), rank, seed));
  // In place: recvbuff == sendbuff + rank * recvcount.
  const size_t ownOffset = static_cast<size_t>(rank) * recvBytes;
  void* out = c.inPlace ? send.at(ownOffset) : recv.data();
  const hetcclResult_t r = hetcclReduceScatter(send.data(), out, c.count, t.type, c.op, comm.comm, c.stream);
  expectSuccess(r, comm.comm, ctx);
  syncStream(c.stream, ctx);
  if (r != hetcclSuccess) return;
  expectForcedAlgorithmRan(comm, CollectiveKind::ReduceScatter, ctx);

  expectSameBits(t, expected, c.inPlace ? send.download(ownOffset, recvBytes) : recv.download(), ctx);
  if (!c.inPlace) expectUntouchedInput(send, input, t, ctx);
  expectGuards(send, "send", ctx);
  expectGuards(recv, "recv", ctx);
}

void checkAllGather(const CommPair& comm, const CollectiveCase& c) {
  const TypeInfo& t = *c.type;
  const std::string ctx = describe("AllGather", &t, nullptr, c.count, c.inPlace, -1, c.stream, comm);
  const int n = comm.size(), rank = comm.rank();
  const uint64_t seed = nextSeed();
  const size_t sendBytes = c.count * t.size;
  const size_t recvBytes = sendBytes * static_cast<size_t>(n);
  const Bytes input = makeInput(t, kMoveOnly, n, rank, c.count, seed);
  const Bytes expected = referenceAllGather(t, input, c.count, comm.mpi);

  DeviceBuffer send(c.inPlace ? 0 : sendBytes), recv(recvBytes);
  recv.upload(makeGarbage(recvBytes, rank, seed));
  // In place: sendbuff == recvbuff + rank * sendcount, already holding this rank's input.
  const size_t ownOffset = static_cast<size_t>(rank) * sendBytes;
  if (c.inPlace)
    recv.upload(input, ownOffset);
  else
    send.upload(input);
  const void* in = c.inPlace ? recv.at(ownOffset) : send.data();
  const hetcclResult_t r = hetcclAllGather(in, recv.data(), c.count, t.type, comm.comm, c.stream);
  expectSuccess(r, comm.comm, ctx);
  syncStream(c.stream, ctx);
  if (r != hetcclSuccess) return;
  expectForcedAlgorithmRan(comm, CollectiveKind::AllGather, ctx);

  expectSameBits(t, expected, recv.download(), ctx);
  if (!c.inPlace) expectUntouchedInput(send, input, t, ctx);
  expectGuards(send, "send", ctx);
  expectGuards(recv, "recv", ctx);
}

void checkBroadcast(const CommPair& comm, const CollectiveCase& c) {
  const TypeInfo& t = *c.type;
  const std::string ctx = describe("Broadcast", &t, nullptr, c.count, c.inPlace, c.root, c.stream, comm);
  const int n = comm.size(), rank = comm.rank();
  const uint64_t seed = nextSeed();
  const size_t bytes = c.count * t.size;
  const Bytes input = makeInput(t, kMoveOnly, n, rank, c.count, seed);
  const Bytes expected = referenceBroadcast(t, input, c.count, c.root, comm.mpi);

  DeviceBuffer send(bytes), recv(c.inPlace ? 0 : bytes);
  // In place, non-root ranks start from garbage that must be overwritten.
  send.upload(c.inPlace && rank != c.root ? makeGarbage(bytes, rank, seed) : input);
  recv.upload(makeGarbage(recv.bytes(), rank, seed));
  void* out = c.inPlace ? send.data() : recv.data();
  const hetcclResult_t r = hetcclBroadcast(send.data(), out, c.count, t.type, c.root, comm.comm, c.stream);
  expectSuccess(r, comm.comm, ctx);
  syncStream(c.stream, ctx);
  if (r != hetcclSuccess) return;
  expectForcedAlgorithmRan(comm, CollectiveKind::Broadcast, ctx);

  expectSameBits(t, expected, c.inPlace ? send.download() : recv.download(), ctx);
  if (!c.inPlace) expectUntouchedInput(send, input, t, ctx);
  expectGuards(send, "send", ctx);
  expectGuards(recv, "recv", ctx);
}

void checkReduce(const CommPair& comm, const CollectiveCase& c) {
  const TypeInfo& t = *c.type;
  const std::string ctx = describe("Reduce", &t, opName(c.op), c.count, c.inPlace, c.root, c.stream, comm);
  const int n = comm.size(), rank = comm.rank();
  const uint64_t seed = nextSeed();
  const size_t bytes = c.count * t.size;
  const Bytes input = makeInput(t, c.op, n, rank, c.count, seed);
  const Bytes expected = referenceReduce(t, c.op, input, c.count, c.root, comm.mpi);

  DeviceBuffer send(bytes), recv(c.inPlace ? 0 : bytes);
  send.upload(input);
  recv.upload(makeGarbage(recv.bytes(), rank, seed));
  void* out = c.inPlace ? send.data() : recv.data();
  const hetcclResult_t r = hetcclReduce(send.data(), out, c.count, t.type, c.op, c.root, comm.comm, c.stream);
  expectSuccess(r, comm.comm, ctx);
  syncStream(c.stream, ctx);
  if (r != hetcclSuccess) return;
  expectForcedAlgorithmRan(comm, CollectiveKind::Reduce, ctx);

  // recvbuff matters on the root only (NCCL leaves other ranks' recvbuff unspecified).
  if (rank == c.root) expectSameBits(t, expected, c.inPlace ? send.download() : recv.download(), ctx);
  if (!c.inPlace) expectUntouchedInput(send, input, t, ctx);
  expectGuards(send, "send", ctx);
  expectGuards(recv, "recv", ctx);
}

void checkAlltoAll(const CommPair& comm, const CollectiveCase& c) {
  const TypeInfo& t = *c.type;
  const std::string ctx = describe("AlltoAll", &t, nullptr, c.count, c.inPlace, -1, c.stream, comm);
  const int n = comm.size(), rank = comm.rank();
  const uint64_t seed = nextSeed();
  const size_t bytes = c.count * t.size * static_cast<size_t>(n);
  const Bytes input = makeInput(t, kMoveOnly, n, rank, c.count * static_cast<size_t>(n), seed);
  const Bytes expected = referenceAlltoAll(t, input, c.count, comm.mpi);

  DeviceBuffer send(bytes), recv(c.inPlace ? 0 : bytes);
  send.upload(input);
  recv.upload(makeGarbage(recv.bytes(), rank, seed));
  void* out = c.inPlace ? send.data() : recv.data();
  const hetcclResult_t r = hetcclAlltoAll(send.data(), out, c.count, t.type, comm.comm, c.stream);
  expectSuccess(r, comm.comm, ctx);
  syncStream(c.stream, ctx);
  if (r != hetcclSuccess) return;
  expectForcedAlgorithmRan(comm, CollectiveKind::AlltoAll, ctx);

  expectSameBits(t, expected, c.inPlace ? send.download() : recv.download(), ctx);
  if (!c.inPlace) expectUntouchedInput(send, input, t, ctx);
  expectGuards(send, "send", ctx);
  expectGuards(recv, "recv", ctx);
}

}  // namespace hetccl_test
