// ncclMemAlloc / ncclMemFree: memory of the device this process drives, from hetccl's backend
// (device memory on a GPU, host memory on the host device), so a program that takes its
// buffers from here runs unchanged on both.
#include "nccl/shim_support.h"

using namespace hetccl_nccl;

extern "C" {

ncclResult_t ncclMemAlloc(void** ptr, size_t size) { return forward(hetcclMemAlloc(ptr, size), nullptr); }
HETCCL_NCCL_PROFILING_ALIAS(ncclMemAlloc);

ncclResult_t ncclMemFree(void* ptr) { return forward(hetcclMemFree(ptr), nullptr); }
HETCCL_NCCL_PROFILING_ALIAS(ncclMemFree);

}  // extern "C"
