// A bracket of hetcclGroupStart / hetcclGroupEnd that is always closed: a client that makes
// several calls as one group must end the group even when one of them is refused, or the
// thread stays inside a group and its next, unrelated call is queued instead of run.
#pragma once

#include "hetccl/hetccl.h"

namespace hetccl_client {

// Runs `calls(record)` inside one hetccl group.  `calls` passes each call's result to
// `record`, which keeps the first failure and returns whether every call so far succeeded (so
// that `calls` may stop at the first failure).  The group is ended in every case; the result
// is the first failure, else hetcclGroupEnd's.  On failure, hetcclGetLastError(NULL) holds the
// newest message of this thread.
template <typename Calls>
hetcclResult_t inGroup(Calls&& calls) {
  hetcclResult_t first = hetcclGroupStart();
  if (first != hetcclSuccess) return first;
  calls([&first](hetcclResult_t result) {
    if (first == hetcclSuccess) first = result;
    return first == hetcclSuccess;
  });
  const hetcclResult_t ended = hetcclGroupEnd();
  return first != hetcclSuccess ? first : ended;
}

}  // namespace hetccl_client
