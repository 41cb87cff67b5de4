// What every file of the NCCL drop-in shares: how NCCL's handles, enums and results map onto
// hetccl's, and where the messages behind ncclGetLastError are kept.
//
// The shim is compiled against the real <nccl.h> so that the compiler checks every signature
// against NCCL's; it uses only hetccl's public C API, like any other client of libhetccl.
#pragma once

#include <nccl.h>

#include "hetccl/hetccl.h"

namespace hetccl_nccl {

// An ncclComm_t is the hetcclComm_t itself, not a wrapper: hetccl already recognises destroyed
// or foreign handles (its live-communicator registry), and no shim state can go stale.
inline hetcclComm_t toHetccl(ncclComm_t comm) { return reinterpret_cast<hetcclComm_t>(comm); }
inline ncclComm_t toNccl(hetcclComm_t comm) { return reinterpret_cast<ncclComm_t>(comm); }
// A cudaStream_t is passed through unchanged: hetccl's stream is "the device's stream", a
// cudaStream_t on a CUDA device and NULL (the default stream) on the host device.
inline hetcclStream_t toHetccl(cudaStream_t stream) { return static_cast<void*>(stream); }

// NCCL result for a hetccl result.  hetcclTimeout, which NCCL lacks, becomes ncclRemoteError:
// an operation times out when a peer stops taking part, which is what NCCL reports as a remote
// error; ncclGetLastError still says "timed out".
ncclResult_t toNcclResult(hetcclResult_t result);

// Converts NCCL's type or op, or records why it cannot (fp8, custom PreMulSum ops, out of
// range) and returns ncclInvalidArgument.  `function` names the API call for the message.
ncclResult_t toHetcclType(const char* function, ncclDataType_t type, hetcclDataType_t* out);
ncclResult_t toHetcclOp(const char* function, ncclRedOp_t op, hetcclRedOp_t* out);

// A failure detected by the shim itself: records "function: message" as this thread's last
// error and returns `code`.
ncclResult_t fail(ncclResult_t code, const char* function, const char* format, ...)
    __attribute__((format(printf, 3, 4)));
// As fail, for a feature hetccl does not have: also printed once per call to stderr, since a
// program that depends on it needs porting, not a retry.
ncclResult_t unsupported(const char* function, const char* why);
// The result of a forwarded hetccl call; on failure, hetccl's message (of `comm`, or of this
// thread) becomes this thread's last error.
ncclResult_t forward(hetcclResult_t result, hetcclComm_t comm);

}  // namespace hetccl_nccl

// NCCL exports every entry point twice, `ncclX` and `pncclX` (a profiling interface in the
// manner of MPI's PMPI): a tool defines ncclX and calls pncclX.  Here pncclX is an alias of
// ncclX, so both reach the same code.  Must follow the definition, in the same file.
#define HETCCL_NCCL_PROFILING_ALIAS(name) extern "C" decltype(name) p##name __attribute__((alias(#name)))
