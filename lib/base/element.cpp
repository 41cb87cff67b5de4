#include "base/element.h"

namespace hetccl {

const char* elementTypeName(ElementType t) {
  switch (t) {
    case ElementType::Int8: return "int8";
    case ElementType::Uint8: return "uint8";
    case ElementType::Int32: return "int32";
    case ElementType::Uint32: return "uint32";
    case ElementType::Int64: return "int64";
    case ElementType::Uint64: return "uint64";
    case ElementType::Float16: return "half";
    case ElementType::Float32: return "float";
    case ElementType::Float64: return "double";
    case ElementType::Bfloat16: return "bfloat16";
  }
  return "unknown";  // an out-of-range value cast to the enum: printable, not a crash
}

const char* reduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return "sum";
    case ReduceOp::Prod: return "prod";
    case ReduceOp::Max: return "max";
    case ReduceOp::Min: return "min";
    case ReduceOp::Avg: return "avg";
  }
  return "unknown";
}

}  // namespace hetccl
