#include "core/call_check.h"

#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "algorithms/plan.h"
#include "base/element.h"
#include "runtime/backoff.h"

namespace hetccl {

namespace {

// "allreduce of 1000 float32 sum (root 0, collective 7)"
std::string describe(const CallSignature& call) {
  char text[160];
  std::snprintf(text, sizeof text, "%s of %llu %s %s (root %d, collective %llu)",
                collectiveName(static_cast<Collective>(call.collective)), static_cast<unsigned long long>(call.count),
                elementTypeName(static_cast<ElementType>(call.type)), reduceOpName(static_cast<ReduceOp>(call.op)),
                call.root, static_cast<unsigned long long>(call.number));
  return text;
}

bool same(const CallSignature& a, const CallSignature& b) {
  return a.collective == b.collective && a.type == b.type && a.op == b.op && a.root == b.root && a.count == b.count &&
         a.number == b.number;
}

}  // namespace

Status checkSameCall(hetcclComm& comm, const CallSignature& mine, const std::atomic<bool>& abort) {
  std::vector<CallSignature> all(static_cast<size_t>(comm.nranks));
  std::unique_ptr<PendingExchange> exchange;
  HETCCL_TRY(comm.members->startAllGather(&mine, sizeof mine, all.data(), &exchange));
  Backoff backoff;
  for (bool done = false; !done;) {
    HETCCL_TRY(exchange->test(&done));
    if (done) break;
    if (abort.load(std::memory_order_relaxed))
      return HETCCL_STATUS(Code::Aborted, "the communicator was aborted during a call check");
    const Status remote = comm.control->poll(comm.runningCollective.load(std::memory_order_relaxed));
    if (!remote.isOk()) return remote;
    if (comm.settings.timeoutSeconds > 0 && backoff.idleSeconds() > comm.settings.timeoutSeconds)
      return HETCCL_STATUS(Code::Timeout, "no progress for %.0f s (HETCCL_TIMEOUT) in the call check of %s",
                           comm.settings.timeoutSeconds, describe(mine).c_str());
    backoff.pause();
  }
  // Every rank compares the same list, so every rank reports the same pair.
  for (int rank = 1; rank < comm.nranks; ++rank)
    if (!same(all[0], all[static_cast<size_t>(rank)]))
      return HETCCL_STATUS(Code::InvalidUsage,
                           "HETCCL_CHECK_CALLS: ranks disagree on the call: rank 0 called %s, rank %d %s",
                           describe(all[0]).c_str(), rank, describe(all[static_cast<size_t>(rank)]).c_str());
  return Status::ok();
}

}  // namespace hetccl
