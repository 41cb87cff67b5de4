// A vendor collectives library (NCCL, or RCCL, which exports the same C ABI under the same
// names) opened at run time.  Opened, never linked: NCCL and RCCL can never share one symbol
// namespace, a process without a GPU must not need either, and RCCL is absent from most
// machines.  The calls are declared here from NCCL's documented C ABI (result, type and op
// values are the ones hetccl's public API already uses), so no vendor header is needed.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "device/device.h"

namespace hetccl {

// ncclUniqueId: 128 opaque bytes, passed by value.
struct VendorUniqueId {
  char bytes[128];
};
using VendorComm = void*;  // ncclComm_t

class VendorLibrary {
 public:
  // dlopen of `nameOrPath` (a file name is searched as the loader does) with its own symbol
  // scope; fails with the loader's message, or naming the first missing call.
  static Status open(const std::string& nameOrPath, std::unique_ptr<VendorLibrary>* library);
  ~VendorLibrary();
  VendorLibrary(const VendorLibrary&) = delete;
  VendorLibrary& operator=(const VendorLibrary&) = delete;

  // "libnccl.so.2 (version 22809)".
  std::string describe() const;
  // "nccl", "rccl", "hetccl-nccl": the file name without "lib" and extensions, for the
  // algorithm names tools print.
  std::string shortName() const;
  // True when the library is hetccl's own NCCL drop-in (it would hand the work back to us).
  bool isHetcclDropIn() const { return isHetcclDropIn_; }

  Status uniqueId(VendorUniqueId* id);
  Status initRank(VendorComm* comm, int nranks, const VendorUniqueId& id, int rank);
  Status destroy(VendorComm comm, bool abort);
  // The communicator's asynchronous error (ncclCommGetAsyncError), as a Status.
  Status asyncError(VendorComm comm);

  Status allReduce(const void* send, void* recv, size_t count, ElementType type, ReduceOp op, VendorComm comm,
                   StreamHandle stream);
  Status reduceScatter(const void* send, void* recv, size_t recvCount, ElementType type, ReduceOp op, VendorComm comm,
                       StreamHandle stream);
  Status allGather(const void* send, void* recv, size_t sendCount, ElementType type, VendorComm comm,
                   StreamHandle stream);
  Status broadcast(const void* send, void* recv, size_t count, ElementType type, int root, VendorComm comm,
                   StreamHandle stream);
  Status reduce(const void* send, void* recv, size_t count, ElementType type, ReduceOp op, int root, VendorComm comm,
                StreamHandle stream);
  Status send(const void* buffer, size_t bytes, int peer, VendorComm comm, StreamHandle stream);
  Status recv(void* buffer, size_t bytes, int peer, VendorComm comm, StreamHandle stream);
  Status groupStart();
  Status groupEnd();

 private:
  struct Calls;
  VendorLibrary() = default;
  Status check(int result, VendorComm comm, const char* call) const;

  void* handle_ = nullptr;
  std::string path_;
  int version_ = 0;
  bool isHetcclDropIn_ = false;
  std::unique_ptr<Calls> calls_;
};

// True while this thread is inside a call into a vendor library.  A communicator created
// then is one the library made of hetccl itself (hetccl's NCCL drop-in standing in for
// NCCL): it must not delegate again.
bool insideVendorLibraryCall();

}  // namespace hetccl
