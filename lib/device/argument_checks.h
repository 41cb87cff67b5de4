// Argument checks every device backend makes before enqueuing a reduction, a division or a
// conversion, so that host, CUDA and HIP refuse exactly the same calls with the same messages.
// Header-only:
// the GPU modules are built apart from the library's objects.
#pragma once

#include <cstdint>

#include "base/element.h"
#include "base/status.h"

namespace hetccl {

// True when two ranges of `bytes` overlap without starting at the same address (an exact
// alias is fine for elementwise kernels; a shifted one is not).
inline bool rangesPartiallyOverlap(const void* x, const void* y, size_t bytes) {
  const auto xBegin = reinterpret_cast<uintptr_t>(x);
  const auto yBegin = reinterpret_cast<uintptr_t>(y);
  return xBegin != yBegin && xBegin < yBegin + bytes && yBegin < xBegin + bytes;
}

inline Status checkReduceArguments(const void* dst, const void* a, const void* b, size_t count, ElementType type,
                                   ReduceOp op) {
  if (!isValidElementType(static_cast<int>(type)))
    return HETCCL_STATUS(Code::InvalidArgument, "reduceAsync: invalid type %d", int(type));
  if (!isValidReduceOp(static_cast<int>(op)))
    return HETCCL_STATUS(Code::InvalidArgument, "reduceAsync: invalid op %d", int(op));
  if (count == 0) return Status::ok();
  if (dst == nullptr || a == nullptr || b == nullptr)
    return HETCCL_STATUS(Code::InvalidArgument, "reduceAsync: null pointer for %zu elements", count);
  const size_t size = elementSize(type);
  if (count > SIZE_MAX / size) return HETCCL_STATUS(Code::InvalidArgument, "reduceAsync: %zu elements overflow", count);
  if (rangesPartiallyOverlap(dst, a, count * size) || rangesPartiallyOverlap(dst, b, count * size))
    return HETCCL_STATUS(Code::InvalidArgument, "reduceAsync: dst overlaps an input without being equal to it");
  return Status::ok();
}

inline Status checkDivideArguments(const void* dst, size_t count, ElementType type, uint64_t divisor) {
  if (!isValidElementType(static_cast<int>(type)))
    return HETCCL_STATUS(Code::InvalidArgument, "divideAsync: invalid type %d", int(type));
  if (divisor == 0) return HETCCL_STATUS(Code::InvalidArgument, "divideAsync: divisor 0");
  if (count > 0 && divisor != 1 && dst == nullptr)
    return HETCCL_STATUS(Code::InvalidArgument, "divideAsync: null pointer for %zu elements", count);
  return Status::ok();
}

// The conversions convertAsync makes: float16 or bfloat16 widened to float32 (exact), and
// float32 narrowed to either (rounded to nearest, ties to even): fp32 accumulation's two ends.
inline bool isAccumulationConversion(ElementType to, ElementType from) {
  const auto narrow = [](ElementType t) { return t == ElementType::Float16 || t == ElementType::Bfloat16; };
  return (to == ElementType::Float32 && narrow(from)) || (narrow(to) && from == ElementType::Float32);
}

inline Status checkConvertArguments(const void* dst, ElementType to, const void* src, ElementType from, size_t count) {
  if (!isValidElementType(static_cast<int>(to)) || !isValidElementType(static_cast<int>(from)) ||
      !isAccumulationConversion(to, from))
    return HETCCL_STATUS(Code::InvalidArgument, "convertAsync: no conversion from type %d to type %d", int(from),
                         int(to));
  if (count == 0) return Status::ok();
  if (dst == nullptr || src == nullptr)
    return HETCCL_STATUS(Code::InvalidArgument, "convertAsync: null pointer for %zu elements", count);
  if (count > SIZE_MAX / 4) return HETCCL_STATUS(Code::InvalidArgument, "convertAsync: %zu elements overflow", count);
  const auto d = reinterpret_cast<uintptr_t>(dst);
  const auto s = reinterpret_cast<uintptr_t>(src);
  if (d < s + count * elementSize(from) && s < d + count * elementSize(to))
    return HETCCL_STATUS(Code::InvalidArgument, "convertAsync: dst overlaps src");
  return Status::ok();
}

}  // namespace hetccl
