// The NCCL entry points hetccl cannot serve, in one place, each saying why and what to do
// instead.  They exist (rather than being left undefined) so that a program linked against
// NCCL still loads with the drop-in and fails at the call with ncclInvalidUsage and a message
// (on stderr and from ncclGetLastError), not at start-up with an unresolved symbol.
#include "nccl/shim_support.h"

using namespace hetccl_nccl;

extern "C" {

// hetccl chooses the process's device itself (HETCCL_DEVICE, HETCCL_DEVICE_ID, else the local
// rank) and its public API does not report the index, so there is no true answer to give.
ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int* device) {
  return unsupported("ncclCommCuDevice",
                     "hetccl chooses each process's device itself (HETCCL_DEVICE_ID, else the "
                     "local rank) and does not report its CUDA index through the NCCL API");
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommCuDevice);

ncclResult_t ncclCommShrink(ncclComm_t comm, int* excludeRanksList, int excludeRanksCount, ncclComm_t* newcomm,
                            ncclConfig_t* config, int shrinkFlags) {
  if (newcomm) *newcomm = nullptr;
  return unsupported("ncclCommShrink", "hetccl has no fault-tolerant communicator shrinking");
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommShrink);

ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags) {
  return unsupported("ncclCommRevoke", "use ncclCommAbort");
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommRevoke);

ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void* buff, size_t size, ncclWindow_t* win, int winFlags) {
  if (win) *win = nullptr;
  return unsupported("ncclCommWindowRegister", "hetccl has no symmetric memory windows");
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommWindowRegister);

ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win) {
  return unsupported("ncclCommWindowDeregister", "hetccl has no symmetric memory windows");
}
HETCCL_NCCL_PROFILING_ALIAS(ncclCommWindowDeregister);

// A custom op would have to be understood by every vendor's reduction kernels and by the plan
// verifier; hetccl has the five built-in ops only.
ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t* op, void* scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm) {
  return unsupported("ncclRedOpCreatePreMulSum",
                     "custom reduction ops; scale the input (or the result) yourself and use "
                     "ncclSum, or ncclAvg for a mean");
}
HETCCL_NCCL_PROFILING_ALIAS(ncclRedOpCreatePreMulSum);

ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm) {
  return unsupported("ncclRedOpDestroy", "custom reduction ops (ncclRedOpCreatePreMulSum never creates one)");
}
HETCCL_NCCL_PROFILING_ALIAS(ncclRedOpDestroy);

ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t* simInfo) {
  return unsupported("ncclGroupSimulateEnd",
                     "simulation of a group; hetccl-sim predicts times from a cluster description");
}
HETCCL_NCCL_PROFILING_ALIAS(ncclGroupSimulateEnd);

}  // extern "C"
