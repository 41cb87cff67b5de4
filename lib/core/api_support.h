// Shared by the API entry points: turning a Status into a hetcclResult_t and remembering its
// message where hetcclGetLastError will look.
#pragma once

#include "core/communicator.h"
#include "hetccl/hetccl.h"

namespace hetccl {

// Records the message of a failed status (on the communicator, or on this thread when there
// is none) and returns its code; logs it at WARN.
hetcclResult_t report(hetcclComm* comm, const Status& status);
// A usable communicator, or InvalidArgument (null, destroyed) / its poisoning error.
Status checkCommunicator(const hetcclComm* comm);

}  // namespace hetccl
