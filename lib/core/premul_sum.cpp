#include "core/premul_sum.h"

#include <cstdint>
#include <cstring>
#include <mutex>
#include <vector>

#include "base/element.h"
#include "device/reduce_ops.h"
#include "hetccl/hetccl.h"

namespace hetccl {
namespace {

struct ScaledSumOp {
  bool live = false;
  const hetcclComm* comm = nullptr;
  ElementType type = ElementType::Float32;
  bool onDevice = false;  // read at each use
  const void* devicePointer = nullptr;
  unsigned char hostValue[8] = {};  // copied at creation
};

// Op value = hetcclNumOps + slot.  NCCL's ncclRedOp_t keeps created ops below 2^31.
std::mutex opsLock;
std::vector<ScaledSumOp> ops;

template <class T>
void scale(void* data, size_t count, const void* scalarBytes) {
  T scalar;
  std::memcpy(&scalar, scalarBytes, sizeof scalar);
  auto* elements = static_cast<T*>(data);
  for (size_t i = 0; i < count; ++i) elements[i] = reduce_math::multiply(elements[i], scalar);
}

void scaleAs(ElementType type, void* data, size_t count, const void* scalar) {
  switch (type) {
    case ElementType::Int8: scale<int8_t>(data, count, scalar); break;
    case ElementType::Uint8: scale<uint8_t>(data, count, scalar); break;
    case ElementType::Int32: scale<int32_t>(data, count, scalar); break;
    case ElementType::Uint32: scale<uint32_t>(data, count, scalar); break;
    case ElementType::Int64: scale<int64_t>(data, count, scalar); break;
    case ElementType::Uint64: scale<uint64_t>(data, count, scalar); break;
    case ElementType::Float16: scale<Float16>(data, count, scalar); break;
    case ElementType::Bfloat16: scale<Bfloat16>(data, count, scalar); break;
    case ElementType::Float32: scale<float>(data, count, scalar); break;
    case ElementType::Float64: scale<double>(data, count, scalar); break;
  }
}

// The op's slot, if it is a live op of `comm`.
Status find(const hetcclComm& comm, int op, size_t* slot) {
  *slot = size_t(op - hetcclNumOps);
  if (!isScaledSumOp(op) || *slot >= ops.size() || !ops[*slot].live)
    return HETCCL_STATUS(Code::InvalidArgument,
                         "reduction op %d was not made by RedOpCreatePreMulSum, or has been destroyed", op);
  if (ops[*slot].comm != &comm)
    return HETCCL_STATUS(Code::InvalidArgument, "reduction op %d was made for another communicator", op);
  return Status::ok();
}

// Host memory of the device, freed with the holder.
struct HostBuffer {
  Device& device;
  void* data = nullptr;
  ~HostBuffer() {
    if (data) (void)device.releaseHost(data);
  }
};
struct DeviceMemory {
  Device& device;
  void* data = nullptr;
  ~DeviceMemory() {
    if (data) (void)device.release(data);
  }
};

}  // namespace

bool isScaledSumOp(int op) { return op >= hetcclNumOps; }

Status createScaledSumOp(hetcclComm& comm, const void* scalar, int type, bool scalarOnDevice, int* op) {
  ScaledSumOp made;
  made.live = true;
  made.comm = &comm;
  made.type = static_cast<ElementType>(type);
  made.onDevice = scalarOnDevice;
  if (scalarOnDevice)
    made.devicePointer = scalar;
  else
    std::memcpy(made.hostValue, scalar, elementSize(made.type));
  std::lock_guard<std::mutex> guard(opsLock);
  size_t slot = 0;
  while (slot < ops.size() && ops[slot].live) ++slot;
  if (slot >= size_t(1) << 20)
    return HETCCL_STATUS(Code::InvalidUsage, "a million PreMulSum ops are live: destroy some (RedOpDestroy)");
  if (slot == ops.size()) ops.emplace_back();
  ops[slot] = made;
  *op = hetcclNumOps + int(slot);
  return Status::ok();
}

Status destroyScaledSumOp(hetcclComm& comm, int op) {
  std::lock_guard<std::mutex> guard(opsLock);
  size_t slot = 0;
  HETCCL_TRY(find(comm, op, &slot));
  ops[slot].live = false;
  return Status::ok();
}

Status runScaledSum(hetcclComm& comm, CollectiveCall call, int op,
                    const std::function<Status(const CollectiveCall&)>& sum) {
  ScaledSumOp scaled;
  {
    std::lock_guard<std::mutex> guard(opsLock);
    size_t slot = 0;
    HETCCL_TRY(find(comm, op, &slot));
    scaled = ops[slot];
  }
  if (scaled.type != call.type)
    return HETCCL_STATUS(Code::InvalidArgument, "reduction op %d was made for %s, not %s", op,
                         elementTypeName(scaled.type), elementTypeName(call.type));
  // Every member reads its whole input: count elements, or count per rank in a reduce-scatter.
  const size_t count = call.collective == Collective::ReduceScatter ? call.count * size_t(comm.nranks) : call.count;
  const size_t bytes = count * elementSize(call.type);
  Device& device = *comm.device;
  // The input (and a scalar in device memory) is written by work queued on the caller's stream.
  HETCCL_TRY(device.synchronizeStream(call.stream));
  unsigned char scalar[8];
  std::memcpy(scalar, scaled.hostValue, sizeof scalar);
  HostBuffer host{device};
  HETCCL_TRY(device.allocateHost(&host.data, bytes + sizeof scalar));
  if (scaled.onDevice) {
    HETCCL_TRY(device.copyAsync(static_cast<char*>(host.data) + bytes, scaled.devicePointer, elementSize(call.type),
                                comm.stream));
  }
  if (bytes) HETCCL_TRY(device.copyAsync(host.data, call.sendbuff, bytes, comm.stream));
  HETCCL_TRY(device.synchronizeStream(comm.stream));
  if (scaled.onDevice) std::memcpy(scalar, static_cast<char*>(host.data) + bytes, elementSize(call.type));
  scaleAs(call.type, host.data, count, scalar);
  DeviceMemory copy{device};
  if (bytes) {
    HETCCL_TRY(device.allocate(&copy.data, bytes));
    HETCCL_TRY(device.copyAsync(copy.data, host.data, bytes, comm.stream));
    HETCCL_TRY(device.synchronizeStream(comm.stream));
  }
  call.sendbuff = copy.data;
  call.op = ReduceOp::Sum;
  HETCCL_TRY(sum(call));
  // The copy is read by the sum, which may still be queued on the caller's stream.
  return device.synchronizeStream(call.stream);
}

}  // namespace hetccl
