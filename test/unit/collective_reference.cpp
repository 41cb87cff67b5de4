#include "collective_reference.h"

#include <algorithm>
#include <cstdint>

namespace hetccl {

size_t inputCount(const CollectiveShape& shape) {
  const size_t p = static_cast<size_t>(shape.nranks);
  switch (shape.collective) {
    case Collective::ReduceScatter:
    case Collective::AlltoAll: return shape.count * p;
    default: return shape.count;
  }
}

size_t outputCount(const CollectiveShape& shape) {
  const size_t p = static_cast<size_t>(shape.nranks);
  switch (shape.collective) {
    case Collective::AllGather:
    case Collective::AlltoAll: return shape.count * p;
    default: return shape.count;
  }
}

double inputValue(int rank, size_t index) { return 1.0 + 7.0 * rank + 64.0 * static_cast<double>(index % 251); }

namespace {

// Element `index` of every rank's input reduced with `op`, as `type` would hold it.
double reduced(const CollectiveShape& shape, ElementType type, size_t index) {
  double result = inputValue(0, index);
  for (int r = 1; r < shape.nranks; ++r) {
    const double value = inputValue(r, index);
    switch (shape.op) {
      case ReduceOp::Max: result = std::max(result, value); break;
      case ReduceOp::Min: result = std::min(result, value); break;
      default: result += value; break;  // Sum, and Avg before its division
    }
  }
  if (shape.op != ReduceOp::Avg) return result;
  if (type == ElementType::Float32) return static_cast<float>(result) / static_cast<float>(shape.nranks);
  return static_cast<double>(static_cast<int64_t>(result) / shape.nranks);  // non-negative: truncation
}

}  // namespace

std::optional<double> expectedOutput(const CollectiveShape& shape, ElementType type, int rank, size_t index) {
  const size_t n = shape.count;
  switch (shape.collective) {
    case Collective::AllReduce: return reduced(shape, type, index);
    case Collective::ReduceScatter: return reduced(shape, type, rank * n + index);
    case Collective::AllGather: return inputValue(static_cast<int>(index / n), index % n);
    case Collective::Broadcast: return inputValue(shape.root, index);
    case Collective::Reduce:
      if (rank != shape.root) return std::nullopt;
      return reduced(shape, type, index);
    case Collective::AlltoAll: return inputValue(static_cast<int>(index / n), rank * n + index % n);
    case Collective::SendRecv: return inputValue(modRank(rank - 1, shape.nranks), index);
  }
  return std::nullopt;
}

void storeElement(void* buffer, size_t index, ElementType type, double value) {
  if (type == ElementType::Float32)
    static_cast<float*>(buffer)[index] = static_cast<float>(value);
  else
    static_cast<int32_t*>(buffer)[index] = static_cast<int32_t>(value);
}

double loadElement(const void* buffer, size_t index, ElementType type) {
  if (type == ElementType::Float32) return static_cast<const float*>(buffer)[index];
  return static_cast<const int32_t*>(buffer)[index];
}

}  // namespace hetccl
