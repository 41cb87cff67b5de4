// --accumulate's error column: how far a float16/bfloat16 sum or average is from the exact
// one, in units in the last place of the result's type.  The inputs are positive values of
// 8 significant bits with exponents -2..1 (exact in both types), so the float64 sum of up to
// 2^20 of them is exact: the reference is computed here, never by the library.  A result
// rounded once from the exact value is at most 0.5 ulp off; one rounded at every hop drifts
// further with the rank count.
#pragma once

#include <cstddef>
#include <cstdint>

#include "perf/perf_types.h"

namespace hetccl_perf {

// Whether the column applies: a sum or average of float16 or bfloat16, all-reduce or
// reduce-scatter.
bool measuresRoundingError(Collective collective, DataType type, RedOp op);

// The bits of element `index` of `rank`'s input (for a reduce-scatter, `index` runs over the
// whole send buffer).
uint16_t errorInputBits(DataType type, int rank, size_t index);
// The exact sum (or average) over `nranks` ranks of element `index`.
double exactResult(DataType type, RedOp op, int nranks, size_t index);
// |value(bits) - exact| in ulps of `type` at exact's magnitude.
double ulpError(DataType type, uint16_t bits, double exact);

}  // namespace hetccl_perf
