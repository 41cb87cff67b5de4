// On a host device an NCCL program cannot wait for a stream: its cudaStreamSynchronize (if it
// links CUDA at all) knows nothing of hetccl's host streams.  So there the drop-in completes
// every operation before its call returns, whatever hetccl's asynchronous runtime does for its
// own callers: a collective or send/receive outside a group waits for its stream, and the
// outermost ncclGroupEnd waits for the streams of the group's calls.  On a GPU nothing waits:
// the program synchronizes its CUDA or HIP streams itself, as with NCCL.  Nor when the caller is
// hetccl itself, standing the drop-in in for an island's vendor library: it waits for its host
// streams as it waits for NCCL's CUDA streams (core/caller_is_hetccl.h).
#pragma once

#include "nccl/shim_support.h"

namespace hetccl_nccl {

// `launched`: the forwarded call's result.  On a host device, and when it succeeded, waits for
// `stream` (outside a group) or remembers it for the group's end.
ncclResult_t completeOnHost(ncclResult_t launched, hetcclComm_t comm, hetcclStream_t stream);
// ncclGroupStart and ncclGroupEnd: track the nesting; the outermost end waits for the streams
// remembered inside the group (after `ended`, GroupEnd's own result, if it succeeded).
void enterGroup();
// Whether this thread is between ncclGroupStart and its ncclGroupEnd.
bool insideGroup();
ncclResult_t leaveGroup(ncclResult_t ended);

}  // namespace hetccl_nccl
