// HETCCL_CHECK_CALLS: before each collective, the ranks exchange what they were asked to do
// (collective, count, type, op, root, and the collective's number on this communicator) and
// compare.  Mismatched calls otherwise end differently on each rank -- an MPI truncation error
// on one, a hang on another, or silently wrong results when the sizes happen to agree -- so a
// mismatch fails the collective on every rank alike, with hetcclInvalidUsage naming both calls
// and their ranks, before any data moves.  Off by default: it costs one small all-gather per
// collective (docs/PERFORMANCE.md).  Calls handed whole to a vendor library are checked on the
// calling thread first; point-to-point groups are not checked.
#pragma once

#include <atomic>
#include <cstdint>

#include "base/status.h"
#include "core/communicator.h"

namespace hetccl {

// What one rank was asked to do; equal on every rank when the calls match.
struct CallSignature {
  int32_t collective = 0;
  int32_t type = 0;
  int32_t op = 0;
  int32_t root = 0;
  uint64_t count = 0;
  uint64_t number = 0;  // the collective's number on this communicator
};

// Collective over the communicator; polls its bootstrap without blocking, so `abort` stops it.
Status checkSameCall(hetcclComm& comm, const CallSignature& mine, const std::atomic<bool>& abort);

}  // namespace hetccl
