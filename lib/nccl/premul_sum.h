// ncclRedOpCreatePreMulSum's ops (FSDP scales gradients with them): every rank's input is
// multiplied by its own scalar, then summed.
//
// hetccl's reductions have the five built-in ops, which every vendor's kernels and the plan
// verifier know; a scaled sum is therefore run as the built-in sum of a scaled copy of the
// input, made here through the host: the call waits for its stream (the input is ready), copies
// the input out, multiplies each element by the scalar with hetccl's own scalar arithmetic
// (device/reduce_ops.h: rounded once to the type; half and bfloat16 through float; integers
// wrap), copies the product into a device buffer and sums that.  So the result is bit for bit
// the ncclSum of the rounded products -- also what NCCL computes -- on every device, at the
// price of a round trip through host memory and of waiting for the stream; the
// copy's buffer is freed once the sum has completed.  Not inside a group (the copy would have
// to outlive the call): refused there with ncclInvalidUsage.
#pragma once

#include <cstddef>

#include <nccl.h>

#include "hetccl/hetccl.h"

namespace hetccl_nccl {

// Whether `op` is one ncclRedOpCreatePreMulSum made (not one of the built-in ops).
bool isPreMulSum(ncclRedOp_t op);

// Runs `sum(scaledInput)` -- the collective, with hetcclSum, from a scaled copy of the `count`
// elements at `sendbuff` -- and frees the copy after it.  Checks that `op` is live, made for
// `comm` and `datatype`.
ncclResult_t runPreMulSum(const char* function, ncclRedOp_t op, ncclDataType_t datatype, const void* sendbuff,
                          size_t count, ncclComm_t comm, cudaStream_t stream,
                          hetcclResult_t (*sum)(const void* scaledInput, void* context), void* context);

}  // namespace hetccl_nccl
