// Gather and scatter as groups of sends and receives (rooted_transfers.h).
#include "client/rooted_transfers.h"

#include "client/group_calls.h"

namespace hetccl_client {
namespace {

// The pattern of both calls: `ownPart()` on every rank (its send to, or receive from, the
// root), then on the root `rootPart(peer)` for every rank's block.  The root's own pair is left
// out when its block is `ownBuffer` itself (in place).
template <typename OwnPart, typename RootPart>
hetcclResult_t rootedExchange(hetcclComm_t comm, int root, const void* const* rootBlocks, const void* ownBuffer,
                              OwnPart ownPart, RootPart rootPart) {
  int nranks = 0, rank = 0;
  if (hetcclResult_t bad = hetcclCommCount(comm, &nranks)) return bad;
  if (hetcclResult_t bad = hetcclCommUserRank(comm, &rank)) return bad;
  if (root < 0 || root >= nranks) return hetcclInvalidArgument;
  const bool isRoot = rank == root;
  // No blocks on the root: each receive or send below refuses its null buffer, with a message.
  const bool skipOwn = isRoot && rootBlocks != nullptr && rootBlocks[root] == ownBuffer;
  return inGroup([&](auto record) {
    if (!skipOwn && !record(ownPart())) return;
    if (!isRoot) return;
    for (int peer = 0; peer < nranks; ++peer)
      if (!(peer == root && skipOwn) && !record(rootPart(peer))) return;
  });
}

}  // namespace

hetcclResult_t groupedGather(const void* sendbuff, void* const* rootBlocks, size_t count, hetcclDataType_t type,
                             int root, hetcclComm_t comm, hetcclStream_t stream) {
  return rootedExchange(
      comm, root, rootBlocks, sendbuff, [&] { return hetcclSend(sendbuff, count, type, root, comm, stream); },
      [&](int peer) { return hetcclRecv(rootBlocks ? rootBlocks[peer] : nullptr, count, type, peer, comm, stream); });
}

hetcclResult_t groupedScatter(const void* const* rootBlocks, void* recvbuff, size_t count, hetcclDataType_t type,
                              int root, hetcclComm_t comm, hetcclStream_t stream) {
  return rootedExchange(
      comm, root, rootBlocks, recvbuff, [&] { return hetcclRecv(recvbuff, count, type, root, comm, stream); },
      [&](int peer) { return hetcclSend(rootBlocks ? rootBlocks[peer] : nullptr, count, type, peer, comm, stream); });
}

}  // namespace hetccl_client
