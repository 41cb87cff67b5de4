// NCCL's collectives, point-to-point calls and groups, forwarded to hetccl's counterparts
// (same arguments, counts and in-place rules) after the type and op are checked here, so that
// an unsupported one (fp8) is explained, and PreMulSum
// ops run as sums of a scaled copy (premul_sum.h) rather than just refused.  On host devices
// each completes before returning (host_completion.h).
#include "nccl/host_completion.h"
#include "nccl/premul_sum.h"
#include "nccl/shim_support.h"

using namespace hetccl_nccl;

namespace {

// The arguments of a reduction, for the sum that runPreMulSum runs from its scaled copy.
struct Reduction {
  void* recvbuff;
  size_t count;
  hetcclDataType_t type;
  int root;
  hetcclComm_t comm;
  hetcclStream_t stream;
};

hetcclResult_t allReduceSum(const void* scaled, void* context) {
  auto* r = static_cast<Reduction*>(context);
  return hetcclAllReduce(scaled, r->recvbuff, r->count, r->type, hetcclSum, r->comm, r->stream);
}
hetcclResult_t reduceScatterSum(const void* scaled, void* context) {
  auto* r = static_cast<Reduction*>(context);
  return hetcclReduceScatter(scaled, r->recvbuff, r->count, r->type, hetcclSum, r->comm, r->stream);
}
hetcclResult_t reduceSum(const void* scaled, void* context) {
  auto* r = static_cast<Reduction*>(context);
  return hetcclReduce(scaled, r->recvbuff, r->count, r->type, hetcclSum, r->root, r->comm, r->stream);
}

}  // namespace

extern "C" {

ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, ncclRedOp_t op,
                           ncclComm_t comm, cudaStream_t stream) {
  hetcclDataType_t type;
  hetcclRedOp_t reduction;
  if (ncclResult_t bad = toHetcclType("ncclAllReduce", datatype, &type)) return bad;
  if (isPreMulSum(op)) {
    Reduction r{recvbuff, count, type, 0, toHetccl(comm), toHetccl(stream)};
    return runPreMulSum("ncclAllReduce", op, datatype, sendbuff, count, comm, stream, allReduceSum, &r);
  }
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
  if (isPreMulSum(op)) {
    int nranks = 0;
    if (ncclResult_t bad = forward(hetcclCommCount(toHetccl(comm), &nranks), toHetccl(comm))) return bad;
    Reduction r{recvbuff, recvcount, type, 0, toHetccl(comm), toHetccl(stream)};
    return runPreMulSum("ncclReduceScatter", op, datatype, sendbuff, recvcount * size_t(nranks), comm, stream,
                        reduceScatterSum, &r);
  }
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
  if (isPreMulSum(op)) {
    Reduction r{recvbuff, count, type, root, toHetccl(comm), toHetccl(stream)};
    return runPreMulSum("ncclReduce", op, datatype, sendbuff, count, comm, stream, reduceSum, &r);
  }
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

}  // extern "C"
