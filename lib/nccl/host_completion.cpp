#include "nccl/host_completion.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "core/caller_is_hetccl.h"

namespace hetccl_nccl {

namespace {

bool onHostDevice() {
  static const bool host = [] {
    const char* kind = nullptr;
    return hetcclGetDeviceKind(&kind) == hetcclSuccess && std::strncmp(kind, "host", 4) == 0;
  }();
  return host;
}

struct GroupStreams {
  int depth = 0;
  std::vector<hetcclStream_t> streams;
};
thread_local GroupStreams group;

}  // namespace

ncclResult_t completeOnHost(ncclResult_t launched, hetcclComm_t comm, hetcclStream_t stream) {
  // hetccl calling its island library waits for the stream itself (caller_is_hetccl.h).
  if (launched != ncclSuccess || !onHostDevice() || hetcclInternalCallerIsHetccl()) return launched;
  if (group.depth > 0) {
    if (std::find(group.streams.begin(), group.streams.end(), stream) == group.streams.end())
      group.streams.push_back(stream);
    return ncclSuccess;
  }
  return forward(hetcclStreamSynchronize(stream), comm);
}

void enterGroup() { ++group.depth; }

bool insideGroup() { return group.depth > 0; }

ncclResult_t leaveGroup(ncclResult_t ended) {
  if (group.depth > 0) --group.depth;
  if (group.depth > 0) return ended;
  std::vector<hetcclStream_t> streams;
  streams.swap(group.streams);
  if (ended != ncclSuccess) return ended;
  for (hetcclStream_t stream : streams)
    if (ncclResult_t failed = forward(hetcclStreamSynchronize(stream), nullptr)) return failed;
  return ncclSuccess;
}

}  // namespace hetccl_nccl
