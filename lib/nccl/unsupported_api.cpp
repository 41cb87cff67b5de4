// The NCCL entry points hetccl cannot serve, in one place, each saying why and what to do
// instead.  They exist (rather than being left undefined) so that a program linked against
// NCCL still loads with the drop-in and fails at the call with ncclInvalidUsage and a message
// (on stderr and from ncclGetLastError), not at start-up with an unresolved symbol.
#include "nccl/shim_support.h"

using namespace hetccl_nccl;

extern "C" {

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

ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t* simInfo) {
  return unsupported("ncclGroupSimulateEnd",
                     "simulation of a group; hetccl-sim predicts times from a cluster description");
}
HETCCL_NCCL_PROFILING_ALIAS(ncclGroupSimulateEnd);

}  // extern "C"
