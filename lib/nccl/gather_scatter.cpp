// ncclGather and ncclScatter, which hetccl has no collective for: one group of point-to-point
// operations, as NCCL users wrote them before NCCL had these calls.  The root's own block moves
// by a send to itself (hetccl allows it inside a group) unless the call is in place.
#include "nccl/host_completion.h"
#include "nccl/shim_support.h"

using namespace hetccl_nccl;

namespace {

// The root-side pattern of both calls: `rootCall(peer, peerBlock)` for every rank's block of
// the root's buffer, `leafCall()` for this rank's own part.  The group is always closed, even
// after a failed call, so a failure never leaves the thread inside a group.
template <typename RootCall, typename LeafCall>
ncclResult_t rootedExchange(const char* function, ncclComm_t comm, int root, bool skipOwnBlock, RootCall rootCall,
                            LeafCall leafCall) {
  hetcclComm_t het = toHetccl(comm);
  int nranks = 0, rank = 0;
  if (ncclResult_t bad = forward(hetcclCommCount(het, &nranks), het)) return bad;
  if (ncclResult_t bad = forward(hetcclCommUserRank(het, &rank), het)) return bad;
  if (root < 0 || root >= nranks)
    return fail(ncclInvalidArgument, function, "root %d is outside 0..%d", root, nranks - 1);
  if (ncclResult_t bad = forward(hetcclGroupStart(), nullptr)) return bad;
  ncclResult_t result = ncclSuccess;
  bool ownBlockSkipped = rank == root && skipOwnBlock;
  if (!ownBlockSkipped) result = forward(leafCall(), het);
  if (rank == root)
    for (int peer = 0; peer < nranks && result == ncclSuccess; ++peer)
      if (!(peer == root && skipOwnBlock)) result = forward(rootCall(peer), het);
  ncclResult_t ended = forward(hetcclGroupEnd(), nullptr);
  return result != ncclSuccess ? result : ended;
}

}  // namespace

extern "C" {

// In place: sendbuff == recvbuff + root * count on the root.
ncclResult_t ncclGather(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  const char* function = "ncclGather";
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType(function, datatype, &type)) return bad;
  size_t blockBytes = count * elementBytes(type);
  char* blocks = static_cast<char*>(recvbuff);
  bool inPlace = blocks && sendbuff == blocks + size_t(root < 0 ? 0 : root) * blockBytes;
  hetcclComm_t het = toHetccl(comm);
  hetcclStream_t hs = toHetccl(stream);
  return completeOnHost(
      rootedExchange(
          function, comm, root, inPlace,
          [&](int peer) { return hetcclRecv(blocks + size_t(peer) * blockBytes, count, type, peer, het, hs); },
          [&] { return hetcclSend(sendbuff, count, type, root, het, hs); }),
      het, hs);
}
HETCCL_NCCL_PROFILING_ALIAS(ncclGather);

// In place: recvbuff == sendbuff + root * count on the root.
ncclResult_t ncclScatter(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                         ncclComm_t comm, cudaStream_t stream) {
  const char* function = "ncclScatter";
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType(function, datatype, &type)) return bad;
  size_t blockBytes = count * elementBytes(type);
  const char* blocks = static_cast<const char*>(sendbuff);
  bool inPlace = blocks && recvbuff == blocks + size_t(root < 0 ? 0 : root) * blockBytes;
  hetcclComm_t het = toHetccl(comm);
  hetcclStream_t hs = toHetccl(stream);
  return completeOnHost(
      rootedExchange(
          function, comm, root, inPlace,
          [&](int peer) { return hetcclSend(blocks + size_t(peer) * blockBytes, count, type, peer, het, hs); },
          [&] { return hetcclRecv(recvbuff, count, type, root, het, hs); }),
      het, hs);
}
HETCCL_NCCL_PROFILING_ALIAS(ncclScatter);

}  // extern "C"
