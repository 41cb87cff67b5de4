// Shared pieces of the multi-rank tests: the communicator every test may use, device buffers
// with guard bytes, and result checks.
//
// Every rank runs the same tests in the same order, so tests may call collectives.  A test must
// therefore never return early or skip a collective because of a rank-local condition (no
// ASSERT_* around collective calls): a rank that left the sequence would hang the others.
#pragma once

#include <cstddef>
#include <string>

#include <gtest/gtest.h>
#include <mpi.h>

#include "hetccl/hetccl.h"
#include "reference.h"

namespace hetccl_test {

// A hetccl communicator together with the MPI communicator it was made from (the reference
// runs on the latter).
struct CommPair {
  CommPair() = default;
  CommPair(hetcclComm_t c, MPI_Comm m) : comm(c), mpi(m) {}
  hetcclComm_t comm = nullptr;
  MPI_Comm mpi = MPI_COMM_NULL;
  std::string configAlgorithm;  // config.algorithm it was made with; empty: none (HETCCL_ALGO holds)
  int rank() const;
  int size() const;
};

// The communicator over MPI_COMM_WORLD that main() creates before the tests and destroys after.
const CommPair& world();
// A stream made with hetcclStreamCreate by main(), for tests that use a non-default stream.
hetcclStream_t userStream();
// Installed by main(); the two accessors above read them.
void setWorld(const CommPair& pair, hetcclStream_t stream);

// A fresh seed for test data; every rank draws the same sequence.
uint64_t nextSeed();

// Device memory from hetcclMemAlloc with guard bytes on both sides of the payload, so that a
// write outside the buffer a collective was given is noticed.  Data moves only through
// hetcclMemcpyToDevice/FromDevice: device memory need not be host-addressable.
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  // Start of the payload.
  void* data() const { return payload_; }
  // Payload pointer advanced by `offset` bytes (for in-place reduce-scatter and all-gather).
  void* at(size_t offset) const { return static_cast<unsigned char*>(payload_) + offset; }
  size_t bytes() const { return bytes_; }
  void upload(const Bytes& data, size_t offset = 0);
  Bytes download(size_t offset, size_t bytes) const;
  Bytes download() const { return download(0, bytes_); }
  // Whether the guards still hold the pattern written at allocation.
  bool guardsIntact() const;

 private:
  static constexpr size_t kGuardBytes = 256;
  void* base_ = nullptr;
  void* payload_ = nullptr;
  size_t bytes_ = 0;
};

// Describes one operation for failure messages, e.g. "AllReduce float32 sum count=61 in-place
// root=2 nranks=4 rank=1 stream=user".
std::string describe(const char* collective, const TypeInfo* type, const char* op, size_t count, bool inPlace, int root,
                     hetcclStream_t stream, const CommPair& comm);

// EXPECTs that a call succeeded; on failure prints the communicator's last error.
void expectSuccess(hetcclResult_t result, hetcclComm_t comm, const std::string& context);
// EXPECTs bitwise equality.
void expectSameBits(const TypeInfo& type, const Bytes& expected, const Bytes& actual, const std::string& context);
// Synchronises `stream` if it is a user stream (outside a group calls already completed, so this
// also checks that synchronising a stream after a collective works).
void syncStream(hetcclStream_t stream, const std::string& context);

}  // namespace hetccl_test
