// Gather and scatter as one group of point-to-point calls, for clients whose API has these
// collectives although hetccl has none (NCCL's ncclGather and ncclScatter, torch's gather and
// scatter), as NCCL users wrote them before NCCL had the calls.  The root's blocks are given
// one pointer per rank, so that one contiguous buffer (NCCL) and a list of tensors (torch) are
// served alike.  The root's own block moves by a send to itself (hetccl allows it inside a
// group), unless it is the very buffer this rank sends or receives (in place).
#pragma once

#include <cstddef>

#include "hetccl/hetccl.h"

namespace hetccl_client {

// Every rank sends `count` elements of `sendbuff` to `root`; the root receives rank r's into
// `rootBlocks[r]` (one entry per rank of `comm`; read on the root only, may be null elsewhere;
// null on the root: refused, as hetcclRecv refuses a null buffer).
// `root` must be a rank of `comm`: callers check it first, with a message of their own (an
// out-of-range root returns hetcclInvalidArgument and records nothing).  Failures as
// inGroup's (group_calls.h).
hetcclResult_t groupedGather(const void* sendbuff, void* const* rootBlocks, size_t count, hetcclDataType_t type,
                             int root, hetcclComm_t comm, hetcclStream_t stream);

// The root sends `rootBlocks[r]` (`count` elements) to each rank r; every rank receives its
// block into `recvbuff`.  As groupedGather otherwise.
hetcclResult_t groupedScatter(const void* const* rootBlocks, void* recvbuff, size_t count, hetcclDataType_t type,
                              int root, hetcclComm_t comm, hetcclStream_t stream);

}  // namespace hetccl_client
