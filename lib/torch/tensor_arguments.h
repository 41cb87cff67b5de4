// How torch's tensors, dtypes and reduce ops become hetccl's arguments, and the checks that
// turn a bad use into a Python exception before anything is enqueued.
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "hetccl/hetccl.h"
#include "torch_version.h"

namespace hetccl_torch {

// hetccl's type for the tensor's dtype; throws for dtypes hetccl has no type for (bool,
// complex, ...).
hetcclDataType_t hetcclTypeOf(const at::Tensor& tensor, const char* operation);
// hetccl's op; throws for PREMUL_SUM and the bitwise ops.
hetcclRedOp_t hetcclOpOf(const c10d::ReduceOp& op, const char* operation);

// Throws unless the tensor is dense, contiguous, and a CPU tensor while hetccl's device is the
// host device (GPU tensors are not served yet).
void checkTensor(const at::Tensor& tensor, const char* operation, const char* role);
// Throws unless exactly one tensor was passed (one device per process) and it passes
// checkTensor; returns it.
at::Tensor& singleTensor(std::vector<at::Tensor>& tensors, const char* operation, const char* role);
// Throws unless every tensor of `list` has the dtype and element count of `like`.
void checkSameShape(const std::vector<at::Tensor>& list, const at::Tensor& like, const char* operation,
                    const char* role);
// Throws unless `whole` and `part` pass checkTensor, share a dtype, and `whole` holds exactly
// `parts` times `part`'s elements (all_gather_into_tensor, reduce_scatter_tensor).
void checkWholeOfParts(const at::Tensor& whole, const char* wholeRole, const at::Tensor& part, const char* partRole,
                       int parts, const char* operation);
// Throws `message` as a Python RuntimeError, prefixed with "hetccl <operation>: ".
[[noreturn]] void fail(const char* operation, const std::string& message);

}  // namespace hetccl_torch
