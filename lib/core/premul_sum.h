// Scaled-sum reduction ops (hetcclRedOpCreatePreMulSum, NCCL's ncclRedOpCreatePreMulSum, with
// which FSDP scales gradients): every rank's input is multiplied by its own scalar, then summed.
//
// hetccl's reductions have the five built-in ops, which every vendor's kernels and the plan
// verifier know; a scaled sum is therefore run as the built-in sum of a scaled copy of the
// input, made through host memory: the call waits for its stream (the input is ready), copies
// the input out, multiplies each element by the scalar with the reductions' own scalar
// arithmetic (device/reduce_ops.h: rounded once to the type; half and bfloat16 through float;
// integers wrap), copies the product into device memory and sums that.  The result is bit for
// bit the sum of the rounded products -- what NCCL computes too -- on every device, at the
// price of a round trip through host memory and a wait for the stream; the copy is freed once
// the sum has completed.  Not inside a group (the copy would have to outlive the call).
#pragma once

#include <functional>

#include "base/status.h"
#include "core/communicator.h"

namespace hetccl {

// An op value from hetcclNumOps on: one made here (maybe destroyed since).
bool isScaledSumOp(int op);
Status createScaledSumOp(hetcclComm& comm, const void* scalar, int type, bool scalarOnDevice, int* op);
Status destroyScaledSumOp(hetcclComm& comm, int op);
// Runs `sum` (the collective `call` with ReduceOp::Sum) from a scaled copy of call's input;
// `call.type` is checked against the op's.
Status runScaledSum(hetcclComm& comm, CollectiveCall call, int op,
                    const std::function<Status(const CollectiveCall&)>& sum);

}  // namespace hetccl
