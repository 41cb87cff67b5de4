// What a collective must produce, computed directly from its definition, for inputs whose
// reductions are exact in any order: small integers, also when stored as float32, so that a
// plan's reduction order cannot change a bit and results compare exactly.
#pragma once

#include <cstddef>
#include <optional>

#include "algorithms/plan.h"
#include "base/element.h"

namespace hetccl {

struct CollectiveShape {
  Collective collective = Collective::AllReduce;
  size_t count = 0;  // per rank, as NCCL counts (PlanRequest::count)
  int nranks = 1;
  int root = 0;
  ReduceOp op = ReduceOp::Sum;
};

size_t inputCount(const CollectiveShape& shape);
size_t outputCount(const CollectiveShape& shape);

// Element `index` of `rank`'s input: 1 + 7 rank + 64 (index mod 251), distinct for every rank
// and nearby index, and small enough that a sum over 8 ranks is exact in float32.
double inputValue(int rank, size_t index);

// What `rank` must hold at `index` of its output; nothing where the collective does not write
// (the output of a reduce on a rank other than the root).  `type` decides the average's
// rounding (integers truncate, floats divide once).
std::optional<double> expectedOutput(const CollectiveShape& shape, ElementType type, int rank, size_t index);

// Element access for the types the tests use (int32, float32).
void storeElement(void* buffer, size_t index, ElementType type, double value);
double loadElement(const void* buffer, size_t index, ElementType type);

}  // namespace hetccl
