#include "core/retirement.h"

#include <mutex>
#include <utility>
#include <vector>

#include "base/log.h"

namespace hetccl {

namespace {

bool withdrawn(Executor* executor) { return !executor || executor->withdrawTransfers(); }

// Never destroyed: nothing may call MPI after MPI_Finalize.
void keep(CommunicatorRemains remains) {
  static std::mutex keptLock;
  static auto* kept = new std::vector<CommunicatorRemains>();
  std::lock_guard<std::mutex> guard(keptLock);
  kept->push_back(std::move(remains));
}

}  // namespace

void retire(CommunicatorRemains remains) {
  // Both executors are asked, so that each withdraws what it can.
  const bool executorStopped = withdrawn(remains.executor.get());
  const bool inlineStopped = withdrawn(remains.inlineExecutor.get());
  if (!executorStopped || !inlineStopped) {
    HETCCL_INFO(
        "a failed operation's transfers could not all be withdrawn: its communicator's staging and "
        "scratch memory stay allocated until the process ends");
    keep(std::move(remains));  // the transfers' MPI communicator with them
    return;
  }
  // The executors' transfers go before the transport and memory they use.
  remains.executor.reset();
  remains.inlineExecutor.reset();
  remains.transport.reset();
  remains.scratch.reset();
  if (remains.channel->quiet()) {
    remains.channel.reset();  // withdraws its receive before the communicator goes
    remains.members.reset();
    return;
  }
  keep(std::move(remains));
}

}  // namespace hetccl
