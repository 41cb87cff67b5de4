#include "nccl/premul_sum.h"

#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "base/element.h"
#include "device/reduce_ops.h"
#include "nccl/host_completion.h"
#include "nccl/shim_support.h"

namespace hetccl_nccl {
namespace {

struct PreMulSumOp {
  bool live = false;
  ncclComm_t comm = nullptr;
  ncclDataType_t datatype = ncclFloat32;
  bool onDevice = false;  // ncclScalarDevice: read at each use
  const void* devicePointer = nullptr;
  unsigned char hostValue[8] = {};  // ncclScalarHostImmediate: copied at creation
};

// Op values from ncclNumOps on are the created ones (NCCL's rule), slot = value - ncclNumOps.
std::mutex opsLock;
std::vector<PreMulSumOp> ops;

template <class T>
void scale(void* data, size_t count, const void* scalarBytes) {
  T scalar;
  std::memcpy(&scalar, scalarBytes, sizeof scalar);
  auto* elements = static_cast<T*>(data);
  for (size_t i = 0; i < count; ++i) elements[i] = hetccl::reduce_math::multiply(elements[i], scalar);
}

void scaleAs(hetcclDataType_t type, void* data, size_t count, const void* scalar) {
  switch (type) {
    case hetcclInt8: scale<int8_t>(data, count, scalar); break;
    case hetcclUint8: scale<uint8_t>(data, count, scalar); break;
    case hetcclInt32: scale<int32_t>(data, count, scalar); break;
    case hetcclUint32: scale<uint32_t>(data, count, scalar); break;
    case hetcclInt64: scale<int64_t>(data, count, scalar); break;
    case hetcclUint64: scale<uint64_t>(data, count, scalar); break;
    case hetcclFloat16: scale<hetccl::Float16>(data, count, scalar); break;
    case hetcclBfloat16: scale<hetccl::Bfloat16>(data, count, scalar); break;
    case hetcclFloat32: scale<float>(data, count, scalar); break;
    case hetcclFloat64: scale<double>(data, count, scalar); break;
    default: break;  // checked by toHetcclType before
  }
}

// A copy of the op as it is now, or false (with the failure recorded) if it is no live op of
// `comm` for `datatype`.
ncclResult_t lookUp(const char* function, ncclRedOp_t op, ncclComm_t comm, ncclDataType_t datatype,
                    PreMulSumOp* found) {
  std::lock_guard<std::mutex> guard(opsLock);
  const size_t slot = size_t(int(op) - int(ncclNumOps));
  if (int(op) < int(ncclNumOps) || slot >= ops.size() || !ops[slot].live)
    return fail(ncclInvalidArgument, function,
                "reduction op %d was not made by ncclRedOpCreatePreMulSum, or was "
                "destroyed",
                int(op));
  if (ops[slot].comm != comm)
    return fail(ncclInvalidArgument, function, "reduction op %d was made for another communicator", int(op));
  if (ops[slot].datatype != datatype)
    return fail(ncclInvalidArgument, function, "reduction op %d was made for datatype %d, not %d", int(op),
                int(ops[slot].datatype), int(datatype));
  *found = ops[slot];
  return ncclSuccess;
}

}  // namespace

bool isPreMulSum(ncclRedOp_t op) { return int(op) >= int(ncclNumOps); }

ncclResult_t runPreMulSum(const char* function, ncclRedOp_t op, ncclDataType_t datatype, const void* sendbuff,
                          size_t count, ncclComm_t comm, cudaStream_t stream,
                          hetcclResult_t (*sum)(const void* scaledInput, void* context), void* context) {
  PreMulSumOp scaled;
  if (ncclResult_t bad = lookUp(function, op, comm, datatype, &scaled)) return bad;
  if (insideGroup())
    return fail(ncclInvalidUsage, function,
                "an op of ncclRedOpCreatePreMulSum inside ncclGroupStart/End: hetccl "
                "runs it through a copy of the input, which cannot outlive the call (call it outside the group)");
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType(function, datatype, &type)) return bad;
  const size_t bytes = count * hetccl::elementSize(static_cast<hetccl::ElementType>(type));
  hetcclComm_t hcomm = toHetccl(comm);
  // The input (and a device-resident scalar) is written by work queued on the stream.
  if (ncclResult_t failed = forward(hetcclStreamSynchronize(toHetccl(stream)), hcomm)) return failed;
  unsigned char scalar[8];
  std::memcpy(scalar, scaled.hostValue, sizeof scalar);
  if (scaled.onDevice) {
    const size_t scalarBytes = hetccl::elementSize(static_cast<hetccl::ElementType>(type));
    if (ncclResult_t failed = forward(hetcclMemcpyFromDevice(scalar, scaled.devicePointer, scalarBytes), hcomm))
      return failed;
  }
  std::vector<unsigned char> host(bytes);
  void* copy = nullptr;
  if (bytes) {
    if (ncclResult_t failed = forward(hetcclMemcpyFromDevice(host.data(), sendbuff, bytes), hcomm)) return failed;
    scaleAs(type, host.data(), count, scalar);
    if (ncclResult_t failed = forward(hetcclMemAlloc(&copy, bytes), hcomm)) return failed;
    if (ncclResult_t failed = forward(hetcclMemcpyToDevice(copy, host.data(), bytes), hcomm)) {
      (void)hetcclMemFree(copy);
      return failed;
    }
  }
  ncclResult_t result = forward(sum(copy, context), hcomm);
  // The copy is read by the sum queued on the stream: freed once it has run.
  if (result == ncclSuccess) result = forward(hetcclStreamSynchronize(toHetccl(stream)), hcomm);
  if (copy) (void)hetcclMemFree(copy);
  return result;
}

}  // namespace hetccl_nccl

extern "C" {

ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t* op, void* scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm) {
  using namespace hetccl_nccl;
  const char* function = "ncclRedOpCreatePreMulSum";
  if (!op) return fail(ncclInvalidArgument, function, "op (the output pointer) is NULL");
  if (!scalar) return fail(ncclInvalidArgument, function, "scalar is NULL");
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType(function, datatype, &type)) return bad;
  if (residence != ncclScalarDevice && residence != ncclScalarHostImmediate)
    return fail(ncclInvalidArgument, function, "residence %d is neither ncclScalarDevice nor ncclScalarHostImmediate",
                int(residence));
  int count = 0;
  if (ncclResult_t bad = forward(hetcclCommCount(toHetccl(comm), &count), toHetccl(comm))) return bad;
  PreMulSumOp made;
  made.live = true;
  made.comm = comm;
  made.datatype = datatype;
  made.onDevice = residence == ncclScalarDevice;
  if (made.onDevice)
    made.devicePointer = scalar;
  else
    std::memcpy(made.hostValue, scalar, hetccl::elementSize(static_cast<hetccl::ElementType>(type)));
  std::lock_guard<std::mutex> guard(opsLock);
  size_t slot = 0;
  while (slot < ops.size() && ops[slot].live) ++slot;
  if (int(ncclNumOps) + slot >= size_t(ncclMaxRedOp))
    return fail(ncclInvalidUsage, function, "too many live PreMulSum ops (destroy some with ncclRedOpDestroy)");
  if (slot == ops.size()) ops.emplace_back();
  ops[slot] = made;
  *op = static_cast<ncclRedOp_t>(int(ncclNumOps) + int(slot));
  return ncclSuccess;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclRedOpCreatePreMulSum);

ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm) {
  using namespace hetccl_nccl;
  const char* function = "ncclRedOpDestroy";
  if (!isPreMulSum(op))
    return fail(ncclInvalidArgument, function, "op %d is a built-in op, which cannot be destroyed", int(op));
  std::lock_guard<std::mutex> guard(opsLock);
  const size_t slot = size_t(int(op) - int(ncclNumOps));
  if (slot >= ops.size() || !ops[slot].live)
    return fail(ncclInvalidArgument, function, "op %d is no live ncclRedOpCreatePreMulSum op", int(op));
  if (ops[slot].comm != comm)
    return fail(ncclInvalidArgument, function, "op %d was made for another communicator", int(op));
  ops[slot].live = false;
  return ncclSuccess;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclRedOpDestroy);

}  // extern "C"
