// Shared by the API entry points: turning a Status into a hetcclResult_t and remembering its
// message where hetcclGetLastError will look.
#pragma once

#include "core/communicator.h"
#include "core/live_communicators.h"
#include "hetccl/hetccl.h"

namespace hetccl {

// Records the message of a failed status (on this thread, and on `comm` when the caller holds
// it) and returns its code; logs it at WARN.  `about`: the communicator the failure concerns
// when it is not held (hetcclGetLastError(about) on this thread then finds the message).
hetcclResult_t report(hetcclComm* comm, const Status& status, const hetcclComm* about = nullptr);
// Of a communicator the caller holds (live_communicators.h): ok, or its poisoning error.
Status checkUsable(hetcclComm& comm);

}  // namespace hetccl
