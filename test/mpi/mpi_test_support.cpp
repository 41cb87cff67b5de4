#include "mpi_test_support.h"

#include <cstring>
#include <sstream>

namespace hetccl_test {
namespace {

CommPair gWorld;
hetcclStream_t gUserStream = nullptr;
uint64_t gSeed = 1;

constexpr unsigned char kGuardByte = 0xA5;

}  // namespace

int CommPair::rank() const {
  int r = -1;
  MPI_Comm_rank(mpi, &r);
  return r;
}

int CommPair::size() const {
  int n = 0;
  MPI_Comm_size(mpi, &n);
  return n;
}

const CommPair& world() { return gWorld; }
hetcclStream_t userStream() { return gUserStream; }

void setWorld(const CommPair& pair, hetcclStream_t stream) {
  gWorld = pair;
  gUserStream = stream;
}

uint64_t nextSeed() { return gSeed++; }

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  const hetcclResult_t r = hetcclMemAlloc(&base_, bytes + 2 * kGuardBytes);
  EXPECT_EQ(r, hetcclSuccess) << "hetcclMemAlloc(" << bytes + 2 * kGuardBytes << ") failed";
  if (r != hetcclSuccess || base_ == nullptr) {
    // Later uploads and downloads become no-ops; the test has already failed.
    base_ = nullptr;
    return;
  }
  payload_ = static_cast<unsigned char*>(base_) + kGuardBytes;
  const Bytes guard(kGuardBytes, kGuardByte);
  EXPECT_EQ(hetcclMemcpyToDevice(base_, guard.data(), kGuardBytes), hetcclSuccess);
  EXPECT_EQ(hetcclMemcpyToDevice(static_cast<unsigned char*>(payload_) + bytes_, guard.data(), kGuardBytes),
            hetcclSuccess);
}

DeviceBuffer::~DeviceBuffer() {
  if (base_ != nullptr) {
    EXPECT_EQ(hetcclMemFree(base_), hetcclSuccess);
  }
}

void DeviceBuffer::upload(const Bytes& data, size_t offset) {
  EXPECT_LE(offset + data.size(), bytes_) << "test bug: upload beyond the buffer";
  if (base_ == nullptr || data.empty() || offset + data.size() > bytes_) return;
  EXPECT_EQ(hetcclMemcpyToDevice(at(offset), data.data(), data.size()), hetcclSuccess);
}

Bytes DeviceBuffer::download(size_t offset, size_t bytes) const {
  Bytes out(bytes);
  EXPECT_LE(offset + bytes, bytes_) << "test bug: download beyond the buffer";
  if (base_ == nullptr || bytes == 0 || offset + bytes > bytes_) return out;
  EXPECT_EQ(hetcclMemcpyFromDevice(out.data(), at(offset), bytes), hetcclSuccess);
  return out;
}

bool DeviceBuffer::guardsIntact() const {
  if (base_ == nullptr) return true;
  Bytes head(kGuardBytes), tail(kGuardBytes);
  EXPECT_EQ(hetcclMemcpyFromDevice(head.data(), base_, kGuardBytes), hetcclSuccess);
  EXPECT_EQ(hetcclMemcpyFromDevice(tail.data(), static_cast<unsigned char*>(payload_) + bytes_, kGuardBytes),
            hetcclSuccess);
  const Bytes guard(kGuardBytes, kGuardByte);
  return head == guard && tail == guard;
}

std::string describe(const char* collective, const TypeInfo* type, const char* op, size_t count, bool inPlace, int root,
                     hetcclStream_t stream, const CommPair& comm) {
  std::ostringstream s;
  s << collective;
  if (type != nullptr) s << " " << type->name;
  if (op != nullptr) s << " " << op;
  s << " count=" << count << (inPlace ? " in-place" : " out-of-place");
  if (root >= 0) s << " root=" << root;
  s << " nranks=" << comm.size() << " rank=" << comm.rank() << " stream=" << (stream == nullptr ? "null" : "user");
  return s.str();
}

void expectSuccess(hetcclResult_t result, hetcclComm_t comm, const std::string& context) {
  EXPECT_EQ(result, hetcclSuccess) << context << ": " << hetcclGetErrorString(result) << " ("
                                   << hetcclGetLastError(comm) << ")";
}

void expectSameBits(const TypeInfo& type, const Bytes& expected, const Bytes& actual, const std::string& context) {
  const std::string mismatch = describeMismatch(type, expected, actual);
  EXPECT_TRUE(mismatch.empty()) << context << ": " << mismatch;
}

void syncStream(hetcclStream_t stream, const std::string& context) {
  if (stream != nullptr) {
    EXPECT_EQ(hetcclStreamSynchronize(stream), hetcclSuccess) << context << ": stream synchronise";
  }
}

}  // namespace hetccl_test
