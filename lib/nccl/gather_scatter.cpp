// ncclGather and ncclScatter, which hetccl has no collective for: one group of point-to-point
// operations (client/rooted_transfers.h, shared with the torch backend) over the blocks of the
// root's one buffer.  In place (the root's own block is its other buffer) its block stays.
#include <type_traits>
#include <vector>

#include "base/element.h"
#include "client/rooted_transfers.h"
#include "nccl/host_completion.h"
#include "nccl/shim_support.h"

using namespace hetccl_nccl;

namespace {

// Checks `root` against the communicator, with NCCL's kind of message, and says whether this
// rank is it.
ncclResult_t checkRoot(const char* function, hetcclComm_t comm, int root, bool* isRoot) {
  int nranks = 0, rank = 0;
  if (ncclResult_t bad = forward(hetcclCommCount(comm, &nranks), comm)) return bad;
  if (ncclResult_t bad = forward(hetcclCommUserRank(comm, &rank), comm)) return bad;
  if (root < 0 || root >= nranks)
    return fail(ncclInvalidArgument, function, "root %d is outside 0..%d", root, nranks - 1);
  *isRoot = rank == root;
  return ncclSuccess;
}

// The root's buffer cut into one block of `count` elements per rank (null blocks for a null
// buffer, which the transfers then refuse); empty off the root, where nothing reads them.
template <typename Void>  // void, or const void
std::vector<Void*> blocksOf(Void* buffer, bool isRoot, hetcclComm_t comm, size_t count, hetcclDataType_t type) {
  using Byte = std::conditional_t<std::is_const_v<Void>, const char, char>;
  int nranks = 0;
  if (!isRoot || hetcclCommCount(comm, &nranks) != hetcclSuccess) return {};
  const size_t blockBytes = count * hetccl::elementSize(static_cast<hetccl::ElementType>(type));
  std::vector<Void*> blocks(static_cast<size_t>(nranks), nullptr);
  if (buffer != nullptr)
    for (size_t r = 0; r < blocks.size(); ++r) blocks[r] = static_cast<Byte*>(buffer) + r * blockBytes;
  return blocks;
}

}  // namespace

extern "C" {

// In place: sendbuff == recvbuff + root * count on the root.
ncclResult_t ncclGather(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                        ncclComm_t comm, cudaStream_t stream) {
  const char* function = "ncclGather";
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType(function, datatype, &type)) return bad;
  hetcclComm_t het = toHetccl(comm);
  hetcclStream_t hs = toHetccl(stream);
  bool isRoot = false;
  if (ncclResult_t bad = checkRoot(function, het, root, &isRoot)) return bad;
  const std::vector<void*> blocks = blocksOf(recvbuff, isRoot, het, count, type);
  const hetcclResult_t launched =
      hetccl_client::groupedGather(sendbuff, blocks.empty() ? nullptr : blocks.data(), count, type, root, het, hs);
  // The newest message of this thread: the group's end may be what failed.
  return completeOnHost(forward(launched, nullptr), het, hs);
}
HETCCL_NCCL_PROFILING_ALIAS(ncclGather);

// In place: recvbuff == sendbuff + root * count on the root.
ncclResult_t ncclScatter(const void* sendbuff, void* recvbuff, size_t count, ncclDataType_t datatype, int root,
                         ncclComm_t comm, cudaStream_t stream) {
  const char* function = "ncclScatter";
  hetcclDataType_t type;
  if (ncclResult_t bad = toHetcclType(function, datatype, &type)) return bad;
  hetcclComm_t het = toHetccl(comm);
  hetcclStream_t hs = toHetccl(stream);
  bool isRoot = false;
  if (ncclResult_t bad = checkRoot(function, het, root, &isRoot)) return bad;
  const std::vector<const void*> blocks = blocksOf(sendbuff, isRoot, het, count, type);
  const hetcclResult_t launched =
      hetccl_client::groupedScatter(blocks.empty() ? nullptr : blocks.data(), recvbuff, count, type, root, het, hs);
  return completeOnHost(forward(launched, nullptr), het, hs);
}
HETCCL_NCCL_PROFILING_ALIAS(ncclScatter);

}  // extern "C"
