#include "device/vendor/vendor_library.h"

#include <dlfcn.h>

#include <cstdio>

namespace hetccl {

namespace {

thread_local int vendorCallDepth = 0;

// Marks the calling thread as inside the vendor library for the lifetime of the object.
struct VendorCallScope {
  VendorCallScope() { ++vendorCallDepth; }
  ~VendorCallScope() { --vendorCallDepth; }
};

// NCCL's enum values, which hetccl's Code mirrors (ncclSuccess .. ncclInProgress).
Code codeOfResult(int result) { return result >= 1 && result <= 7 ? static_cast<Code>(result) : Code::InternalError; }

}  // namespace

bool insideVendorLibraryCall() { return vendorCallDepth > 0; }

// The NCCL C ABI: enums are ints, ncclComm_t and cudaStream_t/hipStream_t pointers.
struct VendorLibrary::Calls {
  int (*getVersion)(int*) = nullptr;
  const char* (*getErrorString)(int) = nullptr;
  const char* (*getLastError)(void*) = nullptr;  // optional (NCCL >= 2.13)
  int (*getUniqueId)(VendorUniqueId*) = nullptr;
  int (*commInitRank)(void**, int, VendorUniqueId, int) = nullptr;
  int (*commDestroy)(void*) = nullptr;
  int (*commAbort)(void*) = nullptr;
  int (*commGetAsyncError)(void*, int*) = nullptr;
  int (*allReduce)(const void*, void*, size_t, int, int, void*, void*) = nullptr;
  int (*reduceScatter)(const void*, void*, size_t, int, int, void*, void*) = nullptr;
  int (*allGather)(const void*, void*, size_t, int, void*, void*) = nullptr;
  int (*broadcast)(const void*, void*, size_t, int, int, void*, void*) = nullptr;
  int (*reduce)(const void*, void*, size_t, int, int, int, void*, void*) = nullptr;
  int (*send)(const void*, size_t, int, int, void*, void*) = nullptr;
  int (*recv)(void*, size_t, int, int, void*, void*) = nullptr;
  int (*groupStart)() = nullptr;
  int (*groupEnd)() = nullptr;
};

Status VendorLibrary::open(const std::string& nameOrPath, std::unique_ptr<VendorLibrary>* library) {
  // RTLD_LOCAL keeps the library's nccl* symbols out of the process's namespace (another
  // vendor's, or hetccl's drop-in, may be there).  Not RTLD_DEEPBIND: it would bind the
  // library to its dependencies' own copies of data that the executable has copy-relocated
  // (MPI's predefined communicators, for one), which crashes MPI users such as the drop-in.
  void* handle = dlopen(nameOrPath.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char* error = dlerror();
    return HETCCL_STATUS(Code::SystemError, "cannot load %s: %s", nameOrPath.c_str(), error ? error : "unknown error");
  }
  std::unique_ptr<VendorLibrary> opened(new VendorLibrary());
  opened->handle_ = handle;
  opened->path_ = nameOrPath;
  opened->calls_ = std::make_unique<Calls>();
  Calls& c = *opened->calls_;
  const char* missing = nullptr;
  auto bind = [&](auto& function, const char* name, bool required) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, name));
    if (!function && required && !missing) missing = name;
  };
  bind(c.getVersion, "ncclGetVersion", true);
  bind(c.getErrorString, "ncclGetErrorString", true);
  bind(c.getLastError, "ncclGetLastError", false);
  bind(c.getUniqueId, "ncclGetUniqueId", true);
  bind(c.commInitRank, "ncclCommInitRank", true);
  bind(c.commDestroy, "ncclCommDestroy", true);
  bind(c.commAbort, "ncclCommAbort", true);
  bind(c.commGetAsyncError, "ncclCommGetAsyncError", true);
  bind(c.allReduce, "ncclAllReduce", true);
  bind(c.reduceScatter, "ncclReduceScatter", true);
  bind(c.allGather, "ncclAllGather", true);
  bind(c.broadcast, "ncclBroadcast", true);
  bind(c.reduce, "ncclReduce", true);
  bind(c.send, "ncclSend", true);
  bind(c.recv, "ncclRecv", true);
  bind(c.groupStart, "ncclGroupStart", true);
  bind(c.groupEnd, "ncclGroupEnd", true);
  if (missing)  // left loaded, like every library opened here (see the destructor)
    return HETCCL_STATUS(Code::SystemError, "%s is not an NCCL/RCCL library: it has no %s", nameOrPath.c_str(),
                         missing);
  // dlsym on the handle searches the library's dependencies too: hetccl's drop-in depends on
  // libhetccl, whose entry points no vendor library has.
  opened->isHetcclDropIn_ = dlsym(handle, "hetcclCommInitMPI") != nullptr;
  VendorCallScope scope;
  if (c.getVersion(&opened->version_) != 0) opened->version_ = 0;
  *library = std::move(opened);
  return Status::ok();
}

VendorLibrary::~VendorLibrary() {
  // Never dlclose'd: vendor libraries start threads and register with the GPU runtime, which
  // must not outlive their code.  A loaded library costs only its mapping.
}

std::string VendorLibrary::describe() const { return path_ + " (version " + std::to_string(version_) + ")"; }

std::string VendorLibrary::shortName() const {
  std::string name = path_.substr(path_.rfind('/') == std::string::npos ? 0 : path_.rfind('/') + 1);
  if (name.rfind("lib", 0) == 0) name = name.substr(3);
  return name.substr(0, name.find('.'));
}

Status VendorLibrary::check(int result, VendorComm comm, const char* call) const {
  if (result == 0) return Status::ok();
  const char* what = calls_->getErrorString ? calls_->getErrorString(result) : "";
  const char* detail = calls_->getLastError ? calls_->getLastError(comm) : nullptr;
  return HETCCL_STATUS(codeOfResult(result), "%s (%s) failed: %s%s%s", call, shortName().c_str(), what ? what : "",
                       detail && *detail ? ": " : "", detail ? detail : "");
}

// Every call below enters the library inside a VendorCallScope.  Types and ops pass by value:
// hetccl's are NCCL's.
#define HETCCL_VENDOR_CALL(comm, call, name, ...)        \
  do {                                                   \
    VendorCallScope scope;                               \
    return check(calls_->call(__VA_ARGS__), comm, name); \
  } while (0)

Status VendorLibrary::uniqueId(VendorUniqueId* id) { HETCCL_VENDOR_CALL(nullptr, getUniqueId, "ncclGetUniqueId", id); }
Status VendorLibrary::initRank(VendorComm* comm, int nranks, const VendorUniqueId& id, int rank) {
  HETCCL_VENDOR_CALL(nullptr, commInitRank, "ncclCommInitRank", comm, nranks, id, rank);
}
Status VendorLibrary::destroy(VendorComm comm, bool abort) {
  if (abort) HETCCL_VENDOR_CALL(nullptr, commAbort, "ncclCommAbort", comm);
  HETCCL_VENDOR_CALL(nullptr, commDestroy, "ncclCommDestroy", comm);
}
Status VendorLibrary::asyncError(VendorComm comm) {
  int error = 0;
  {
    VendorCallScope scope;
    HETCCL_TRY(check(calls_->commGetAsyncError(comm, &error), comm, "ncclCommGetAsyncError"));
  }
  return check(error, comm, "an earlier operation (ncclCommGetAsyncError)");
}
Status VendorLibrary::allReduce(const void* send, void* recv, size_t count, ElementType type, ReduceOp op,
                                VendorComm comm, StreamHandle stream) {
  HETCCL_VENDOR_CALL(comm, allReduce, "ncclAllReduce", send, recv, count, int(type), int(op), comm, stream);
}
Status VendorLibrary::reduceScatter(const void* send, void* recv, size_t recvCount, ElementType type, ReduceOp op,
                                    VendorComm comm, StreamHandle stream) {
  HETCCL_VENDOR_CALL(comm, reduceScatter, "ncclReduceScatter", send, recv, recvCount, int(type), int(op), comm, stream);
}
Status VendorLibrary::allGather(const void* send, void* recv, size_t sendCount, ElementType type, VendorComm comm,
                                StreamHandle stream) {
  HETCCL_VENDOR_CALL(comm, allGather, "ncclAllGather", send, recv, sendCount, int(type), comm, stream);
}
Status VendorLibrary::broadcast(const void* send, void* recv, size_t count, ElementType type, int root, VendorComm comm,
                                StreamHandle stream) {
  HETCCL_VENDOR_CALL(comm, broadcast, "ncclBroadcast", send, recv, count, int(type), root, comm, stream);
}
Status VendorLibrary::reduce(const void* send, void* recv, size_t count, ElementType type, ReduceOp op, int root,
                             VendorComm comm, StreamHandle stream) {
  HETCCL_VENDOR_CALL(comm, reduce, "ncclReduce", send, recv, count, int(type), int(op), root, comm, stream);
}
// Bytes travel as ncclUint8 (1).
Status VendorLibrary::send(const void* buffer, size_t bytes, int peer, VendorComm comm, StreamHandle stream) {
  HETCCL_VENDOR_CALL(comm, send, "ncclSend", buffer, bytes, int(ElementType::Uint8), peer, comm, stream);
}
Status VendorLibrary::recv(void* buffer, size_t bytes, int peer, VendorComm comm, StreamHandle stream) {
  HETCCL_VENDOR_CALL(comm, recv, "ncclRecv", buffer, bytes, int(ElementType::Uint8), peer, comm, stream);
}
Status VendorLibrary::groupStart() { HETCCL_VENDOR_CALL(nullptr, groupStart, "ncclGroupStart"); }
Status VendorLibrary::groupEnd() { HETCCL_VENDOR_CALL(nullptr, groupEnd, "ncclGroupEnd"); }

#undef HETCCL_VENDOR_CALL

}  // namespace hetccl
