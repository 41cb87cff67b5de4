// The check's input pattern and the value every output element must hold, computed on each
// rank by a formula of its own, never by the library.  Inputs are small integers (powers of
// two for prod) chosen per type and rank count so that every partial result is exact:
// the correct result then does not depend on the order of the reduction, and the check can
// be bit-exact (0 ulp) for every type, op and algorithm.
#pragma once

#include <cstddef>
#include <cstdint>

#include "perf/perf_types.h"

namespace hetccl_perf {

struct PatternSpec {
  Collective collective = Collective::AllReduce;
  DataType type = DataType::Float32;
  RedOp op = RedOp::Sum;  // ignored by the collectives that only move data
  int nranks = 1;
  int root = 0;
};

// Bits (in the low hetccl::elementSize bytes) of element `index` of `rank`'s input: its send buffer
// out of place, the send region of the shared buffer in place.
uint64_t inputBits(const PatternSpec& spec, int rank, size_t index);

// Bits that element `index` of `rank`'s output region must hold; `count` is the call's count.
uint64_t expectedBits(const PatternSpec& spec, int rank, size_t count, size_t index);

// Whether `rank`'s output is defined at all (reduce: only the root's).
bool rankHasOutput(const PatternSpec& spec, int rank);

// Host buffers of packed elements of `elementSize` bytes, in the machine's byte order.
void storeElement(void* base, size_t index, size_t elementSize, uint64_t bits);
uint64_t loadElement(const void* base, size_t index, size_t elementSize);

void fillInput(const PatternSpec& spec, int rank, size_t elements, void* dst);
void fillExpected(const PatternSpec& spec, int rank, size_t count, size_t elements, void* dst);
// Every element's bits inverted, so a buffer the library never wrote cannot pass the check.
void fillPoison(const void* expected, size_t bytes, void* dst);
// Bitwise comparison, element by element.
size_t countMismatches(const void* actual, const void* expected, size_t elements, size_t elementSize);

// Building blocks, exposed for the unit tests.
// The bits of a small integer in `type` (integers wrap like unsigned C arithmetic).
uint64_t integerBits(DataType type, int64_t value);
// The bits of (negative ? -1 : 1) * 2^exponent in `type`.
uint64_t powerOfTwoBits(DataType type, bool negative, int exponent);
// The bits of an average as the library defines it: integers divide the exact sum with C's
// truncating division; float and double divide in their own type; half and bfloat16 divide
// in float and round to nearest even.
uint64_t averageBits(DataType type, int64_t sum, int nranks);

}  // namespace hetccl_perf
