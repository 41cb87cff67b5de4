// One check per collective: run it through hetccl on a communicator, compute the reference on
// the matching MPI communicator, and EXPECT bitwise equality of the output, untouched guard bytes
// and (out of place) an unchanged send buffer.  Every rank of the communicator must call the
// same checks in the same order.
#pragma once

#include <cstddef>

#include "mpi_test_support.h"

namespace hetccl_test {

struct CollectiveCase {
  const TypeInfo* type = nullptr;
  hetcclRedOp_t op = hetcclSum;  // ignored by all-gather, broadcast and all-to-all
  size_t count = 0;              // per-rank count as the hetccl call takes it
  bool inPlace = false;          // NCCL's in-place pointer rules (see hetccl.h)
  int root = 0;                  // broadcast and reduce only
  hetcclStream_t stream = nullptr;
};

void checkAllReduce(const CommPair& comm, const CollectiveCase& c);
void checkReduceScatter(const CommPair& comm, const CollectiveCase& c);
void checkAllGather(const CommPair& comm, const CollectiveCase& c);
void checkBroadcast(const CommPair& comm, const CollectiveCase& c);
void checkReduce(const CommPair& comm, const CollectiveCase& c);
void checkAlltoAll(const CommPair& comm, const CollectiveCase& c);

}  // namespace hetccl_test
