#include "tensor_arguments.h"

#include <stdexcept>

namespace hetccl_torch {

void fail(const char* operation, const std::string& message) {
  throw std::runtime_error(std::string("hetccl ") + operation + ": " + message);
}

hetcclDataType_t hetcclTypeOf(const at::Tensor& tensor, const char* operation) {
  switch (tensor.scalar_type()) {
    case at::kChar: return hetcclInt8;
    case at::kByte: return hetcclUint8;
    case at::kInt: return hetcclInt32;
    case at::kLong: return hetcclInt64;
    case at::kHalf: return hetcclFloat16;
    case at::kFloat: return hetcclFloat32;
    case at::kDouble: return hetcclFloat64;
    case at::kBFloat16: return hetcclBfloat16;
    default:
      fail(operation, std::string("tensors of dtype ") + c10::toString(tensor.scalar_type()) +
                          " are not supported (hetccl has int8, uint8, int32, int64, float16, bfloat16, "
                          "float32 and float64)");
  }
}

hetcclRedOp_t hetcclOpOf(const c10d::ReduceOp& op, const char* operation) {
  switch (op.op_) {
    case c10d::ReduceOp::SUM: return hetcclSum;
    case c10d::ReduceOp::AVG: return hetcclAvg;
    case c10d::ReduceOp::PRODUCT: return hetcclProd;
    case c10d::ReduceOp::MIN: return hetcclMin;
    case c10d::ReduceOp::MAX: return hetcclMax;
    case c10d::ReduceOp::PREMUL_SUM:
      fail(operation,
           "ReduceOp.PREMUL_SUM is not supported: scale the tensor yourself and use SUM (or AVG for a mean)");
    default:
      fail(operation, "bitwise reduce ops (BAND, BOR, BXOR) are not supported: use SUM, AVG, PRODUCT, MIN or MAX");
  }
}

namespace {

// What the process's hetccl device (HETCCL_DEVICE) is, and which tensors it can serve.
std::string deviceKind() {
  const char* kind = nullptr;
  if (hetcclGetDeviceKind(&kind) != hetcclSuccess || kind == nullptr) return "unknown";
  return kind;
}

}  // namespace

void checkTensor(const at::Tensor& tensor, const char* operation, const char* role) {
  if (!tensor.defined()) fail(operation, std::string(role) + " tensor is undefined");
  if (tensor.is_sparse()) fail(operation, std::string(role) + " tensor is sparse; only dense tensors are supported");
  if (!tensor.is_contiguous())
    fail(operation, std::string(role) + " tensor is not contiguous (call .contiguous() first)");
  if (!tensor.is_cpu())
    fail(operation, std::string(role) + " tensor is on " + tensor.device().str() +
                        ": this backend serves CPU tensors (on hetccl's host device); GPU tensors, ordered on "
                        "torch's current stream, are not written yet");
  const std::string kind = deviceKind();
  if (kind == "host-strict")
    fail(operation,
         "HETCCL_DEVICE=host-strict serves only memory from hetcclMemAlloc, and torch's CPU tensors are "
         "ordinary host memory: use HETCCL_DEVICE=host");
  if (kind != "host")
    fail(operation, std::string(role) + " tensor is on the CPU but hetccl's device is " + kind +
                        " (HETCCL_DEVICE): CPU tensors need HETCCL_DEVICE=host");
}

at::Tensor& singleTensor(std::vector<at::Tensor>& tensors, const char* operation, const char* role) {
  if (tensors.size() != 1)
    fail(operation, "takes exactly one " + std::string(role) + " tensor per process (one device per process), got " +
                        std::to_string(tensors.size()));
  checkTensor(tensors[0], operation, role);
  return tensors[0];
}

void checkSameShape(const std::vector<at::Tensor>& list, const at::Tensor& like, const char* operation,
                    const char* role) {
  for (size_t i = 0; i < list.size(); ++i) {
    checkTensor(list[i], operation, role);
    if (list[i].scalar_type() != like.scalar_type())
      fail(operation, std::string(role) + " tensor " + std::to_string(i) + " has dtype " +
                          c10::toString(list[i].scalar_type()) + ", not " + c10::toString(like.scalar_type()));
    if (list[i].numel() != like.numel())
      fail(operation, std::string(role) + " tensor " + std::to_string(i) + " has " + std::to_string(list[i].numel()) +
                          " elements, not " + std::to_string(like.numel()));
  }
}

void checkWholeOfParts(const at::Tensor& whole, const char* wholeRole, const at::Tensor& part, const char* partRole,
                       int parts, const char* operation) {
  checkTensor(part, operation, partRole);
  checkTensor(whole, operation, wholeRole);
  if (whole.scalar_type() != part.scalar_type())
    fail(operation, std::string("the ") + wholeRole + " tensor's dtype differs from the " + partRole + "'s");
  if (whole.numel() != part.numel() * parts)
    fail(operation, std::string("the ") + wholeRole + " tensor has " + std::to_string(whole.numel()) +
                        " elements, not the group size times the " + partRole + "'s (" +
                        std::to_string(part.numel() * parts) + ")");
}

}  // namespace hetccl_torch
