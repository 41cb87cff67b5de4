// NCCL's collectives, point-to-point calls and groups, forwarded to hetccl's counterparts
// (same arguments, counts and in-place rules) after the type and op are checked here, so that
// an unsupported one (fp8) is explained rather than just refused.  On host devices
// each completes before returning (host_completion.h).
#include "nccl/host_completion.h"
#include "nccl/shim_support.h"

using namespace hetccl_nccl;

extern "C" {

ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
  hetcclDataType_t type;
  hetcclRedOp_t reduction;
  if (ncclResult_t bad = toHetcclType("ncclAllReduce", datatype, &type)) return bad;
  if (ncclResult_t bad = toHetcclOp("ncclAllReduce", op, &reduction)) return bad;
  return completeOnHost(
      forward(hetcclAllReduce(sendbuff, recvbuff, count, type, reduction, toHetccl(comm), toHetccl(stream)),
              toHetccl(comm)),
      toHetccl(comm), toHetccl(stream));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclAllReduce);

ncclResult_t ncclReduceScatter(const void* sendbuff, void* recvbuff, size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) {
  hetcclDataType_t type;
  hetcclRedOp_t reduction;
  if (ncclResult_t bad = toHetcclType("ncclReduceScatter", datatype, &type)) return bad;
  if (ncclResult_t bad = toHetcclOp("ncclReduceScatter", op, &reduction)) return bad;
  return completeOnHost(
      forward(hetcclReduceScatter(sendbuff, recvbuff, recvcount, type, reduction, toHetccl(comm), toHetccl(stream)),
              toHetccl(comm)),
      toHetccl(comm), toHetccl(stream));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclReduceScatter);

ncclResult_t ncclAllGather(const void* sendbuff, void* recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream) {
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType("ncclAllGather", datatype, &type)) return bad;
  return completeOnHost(
      forward(hetcclAllGather(sendbuff, recvbuff, sendcount, type, toHetccl(comm), toHetccl(stream)), toHetccl(comm)),
      toHetccl(comm), toHetccl(stream));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclAllGather);

ncclResult_t ncclBroadcast(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream) {
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType("ncclBroadcast", datatype, &type)) return bad;
  return completeOnHost(
      forward(hetcclBroadcast(sendbuff, recvbuff, count, type, root, toHetccl(comm), toHetccl(stream)), toHetccl(comm)),
      toHetccl(comm), toHetccl(stream));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclBroadcast);

// The legacy in-place broadcast.
ncclResult_t ncclBcast(void* buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                       cudaStream_t stream) {
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType("ncclBcast", datatype, &type)) return bad;
  return completeOnHost(
      forward(hetcclBroadcast(buff, buff, count, type, root, toHetccl(comm), toHetccl(stream)), toHetccl(comm)),
      toHetccl(comm), toHetccl(stream));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclBcast);

ncclResult_t ncclReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                        int root, ncclComm_t comm, cudaStream_t stream) {
  hetcclDataType_t type;
  hetcclRedOp_t reduction;
  if (ncclResult_t bad = toHetcclType("ncclReduce", datatype, &type)) return bad;
  if (ncclResult_t bad = toHetcclOp("ncclReduce", op, &reduction)) return bad;
  return completeOnHost(
      forward(hetcclReduce(sendbuff, recvbuff, count, type, reduction, root, toHetccl(comm), toHetccl(stream)),
              toHetccl(comm)),
      toHetccl(comm), toHetccl(stream));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclReduce);

ncclResult_t ncclAlltoAll(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclComm_t comm,
                          cudaStream_t stream) {
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType("ncclAlltoAll", datatype, &type)) return bad;
  return completeOnHost(
      forward(hetcclAlltoAll(sendbuff, recvbuff, count, type, toHetccl(comm), toHetccl(stream)), toHetccl(comm)),
      toHetccl(comm), toHetccl(stream));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclAlltoAll);

ncclResult_t ncclSend(const void* sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType("ncclSend", datatype, &type)) return bad;
  return completeOnHost(
      forward(hetcclSend(sendbuff, count, type, peer, toHetccl(comm), toHetccl(stream)), toHetccl(comm)),
      toHetccl(comm), toHetccl(stream));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclSend);

ncclResult_t ncclRecv(void* recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream) {
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType("ncclRecv", datatype, &type)) return bad;
  return completeOnHost(
      forward(hetcclRecv(recvbuff, count, type, peer, toHetccl(comm), toHetccl(stream)), toHetccl(comm)),
      toHetccl(comm), toHetccl(stream));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclRecv);

ncclResult_t ncclGroupStart() {
  ncclResult_t started = forward(hetcclGroupStart(), nullptr);
  if (started == ncclSuccess) enterGroup();
  return started;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclGroupStart);

ncclResult_t ncclGroupEnd() { return leaveGroup(forward(hetcclGroupEnd(), nullptr)); }
HETCCL_NCCL_PROFILING_ALIAS(ncclGroupEnd);

// Forwarded to hetccl's (core/premul_sum.h): the scaled sum of a copy of the input.
ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t* op, void* scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm) {
  static_assert(int(ncclScalarDevice) == int(hetcclScalarDevice) &&
                    int(ncclScalarHostImmediate) == int(hetcclScalarHostImmediate),
                "NCCL and hetccl scalar residences must share their values");
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType("ncclRedOpCreatePreMulSum", datatype, &type)) return bad;
  hetcclRedOp_t made = hetcclSum;
  const ncclResult_t result =
      forward(hetcclRedOpCreatePreMulSum(op ? &made : nullptr, scalar, type,
                                         static_cast<hetcclScalarResidence_t>(int(residence)), toHetccl(comm)),
              toHetccl(comm));
  if (result == ncclSuccess) *op = static_cast<ncclRedOp_t>(int(made));
  return result;
}
HETCCL_NCCL_PROFILING_ALIAS(ncclRedOpCreatePreMulSum);

ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm) {
  return forward(hetcclRedOpDestroy(static_cast<hetcclRedOp_t>(int(op)), toHetccl(comm)), toHetccl(comm));
}
HETCCL_NCCL_PROFILING_ALIAS(ncclRedOpDestroy);

}  // extern "C"
