// How hetccl-perf issues each collective through the public API: one place that knows which
// hetccl call a Collective is and which arguments it takes (count per rank, op, root; the
// ring of sends and receives for sendrecv).
#pragma once

#include <hetccl/hetccl.h>

#include "perf/perf_types.h"

namespace hetccl_perf {

struct CallContext {
  hetcclComm_t comm = nullptr;
  hetcclStream_t stream = nullptr;
  int rank = 0;
  int nranks = 1;
};

hetcclDataType_t toHetcclType(DataType type);
hetcclRedOp_t toHetcclOp(RedOp op);

// One call of `collective`; `count` is the call's count argument (per rank where NCCL's is).
// Sendrecv sends to rank+1 and receives from rank-1 in one group, a ring.
hetcclResult_t runCollective(Collective collective, const void* sendbuff, void* recvbuff, size_t count, DataType type,
                             RedOp op, int root, const CallContext& ctx);

}  // namespace hetccl_perf
