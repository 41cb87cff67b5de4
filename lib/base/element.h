// Element types and reduction operations as the library sees them internally. The values are
// the public API's (hetcclDataType_t, hetcclRedOp_t), which are NCCL's.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hetccl {

enum class ElementType : int {
  Int8 = 0,
  Uint8 = 1,
  Int32 = 2,
  Uint32 = 3,
  Int64 = 4,
  Uint64 = 5,
  Float16 = 6,
  Float32 = 7,
  Float64 = 8,
  Bfloat16 = 9,
};
constexpr int kElementTypeCount = 10;

enum class ReduceOp : int { Sum = 0, Prod = 1, Max = 2, Min = 3, Avg = 4 };
constexpr int kReduceOpCount = 5;

inline bool isValidElementType(int t) { return t >= 0 && t < kElementTypeCount; }
inline bool isValidReduceOp(int op) { return op >= 0 && op < kReduceOpCount; }

inline size_t elementSize(ElementType t) {
  switch (t) {
    case ElementType::Int8:
    case ElementType::Uint8: return 1;
    case ElementType::Float16:
    case ElementType::Bfloat16: return 2;
    case ElementType::Int32:
    case ElementType::Uint32:
    case ElementType::Float32: return 4;
    case ElementType::Int64:
    case ElementType::Uint64:
    case ElementType::Float64: return 8;
  }
  return 0;
}

inline bool isFloatingType(ElementType t) {
  return t == ElementType::Float16 || t == ElementType::Float32 || t == ElementType::Float64 ||
         t == ElementType::Bfloat16;
}

// Whether a vendor library (NCCL, RCCL) may reduce with `op` on `type` and still give
// hetccl's documented result.  Not floating-point max/min: hetccl's propagate NaN and order
// -0 < +0 (IEEE 754-2019), which the vendor libraries do not promise.
inline bool vendorReducesAsHetccl(ElementType type, ReduceOp op) {
  return !(isFloatingType(type) && (op == ReduceOp::Max || op == ReduceOp::Min));
}

// Names as nccl-tests prints them (-d flag).
const char* elementTypeName(ElementType t);
const char* reduceOpName(ReduceOp op);

}  // namespace hetccl
