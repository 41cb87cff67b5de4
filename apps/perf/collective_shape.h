// Size and count arithmetic of each collective, as nccl-tests defines it, and its bus
// bandwidth factor.  "size" is the bytes of the full buffer S; for allgather, reducescatter
// and alltoall S = count x nranks x element size with `count` the per-rank count handed to the
// call, so a size that does not divide evenly is rounded down to whole per-rank counts.
#pragma once

#include <cstddef>

#include "perf/perf_types.h"

namespace hetccl_perf {

struct CollectiveShape {
  size_t count = 0;         // the count argument of the call (the table's "count" column)
  size_t sendElements = 0;  // elements of the send buffer
  size_t recvElements = 0;  // elements of the receive buffer
  size_t bytes = 0;         // S: the table's "size" column and the numerator of algbw
  // In-place: one buffer of inPlaceElements; the call's send and receive pointers are these
  // element offsets into it (NCCL's in-place rules).
  size_t inPlaceElements = 0;
  size_t inPlaceSendOffset = 0;
  size_t inPlaceRecvOffset = 0;
};

CollectiveShape collectiveShape(Collective c, size_t requestedBytes, size_t elementSize, int nranks, int rank);

// busbw = algbw x factor: how much of a link's bandwidth the algorithm-independent lower
// bound needs, so different rank counts compare (nccl-tests' PERFORMANCE.md).
double busBandwidthFactor(Collective c, int nranks);
// The factor as a formula of n, for the report's header ("2(n-1)/n", "(n-1)/n", "1").
const char* busBandwidthFormula(Collective c);

}  // namespace hetccl_perf
