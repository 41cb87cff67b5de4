#include "core/live_communicators.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "base/spin_lock.h"
#include "core/communicator.h"

namespace hetccl {

namespace {

// Process-wide by nature: handles are.  The lock also makes "is it live" and "hold it" one
// step, so that an unregistered communicator gains no new holders.  A sorted vector: every
// call looks its communicator up, and a hash set's lookup (a 64-bit division by its bucket
// count, then a bucket's list) was a visible part of a small call's cost.
SpinLock registryLock;  // held for a lookup or an insertion: base/spin_lock.h
std::vector<const hetcclComm*>& registry() {
  static std::vector<const hetcclComm*> live;
  return live;
}

// Where `comm` is in the registry, or would go.
std::vector<const hetcclComm*>::iterator placeOf(const hetcclComm* comm) {
  std::vector<const hetcclComm*>& live = registry();
  return std::lower_bound(live.begin(), live.end(), comm, std::less<const hetcclComm*>());
}

std::vector<const hetcclComm*>::iterator findLive(const hetcclComm* comm) {
  const auto at = placeOf(comm);
  return at != registry().end() && *at == comm ? at : registry().end();
}

}  // namespace

void registerCommunicator(hetcclComm* comm) {
  std::lock_guard<SpinLock> guard(registryLock);
  if (findLive(comm) == registry().end()) registry().insert(placeOf(comm), comm);
}

bool unregisterCommunicator(hetcclComm* comm) {
  std::lock_guard<SpinLock> guard(registryLock);
  auto at = findLive(comm);
  if (at == registry().end()) return false;
  registry().erase(at);
  return true;
}

void waitUntilReleased(hetcclComm* comm) {
  // A call still inside ends soon: an abort's flag stops it at its next poll, and otherwise
  // (destroy) it finishes its work.
  while (comm->holders.load(std::memory_order_acquire) > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

Status CommunicatorHold::acquire(hetcclComm* comm, bool exclusive) {
  release();
  if (comm == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "comm is NULL");
  std::lock_guard<SpinLock> guard(registryLock);
  if (findLive(comm) == registry().end())
    return HETCCL_STATUS(Code::InvalidArgument, "comm %p is not a live communicator (destroyed or never created)",
                         static_cast<const void*>(comm));
  if (exclusive) {
    // Operations wait for a non-blocking creation (NCCL's rule: poll the async error first).
    if (Status made = creationState(*comm); !made.isOk()) {
      if (made.code() != Code::InProgress) return made;
      return HETCCL_STATUS(Code::InvalidUsage,
                           "comm %p is still being created (non-blocking): poll hetcclCommGetAsyncError until it no "
                           "longer answers hetcclInProgress",
                           static_cast<const void*>(comm));
    }
    bool idle = false;
    if (!comm->inOperation.compare_exchange_strong(idle, true, std::memory_order_acq_rel))
      return HETCCL_STATUS(Code::InvalidUsage,
                           "comm %p is in use by another thread: a communicator may be used by one thread at a time",
                           static_cast<const void*>(comm));
  }
  comm->holders.fetch_add(1, std::memory_order_acq_rel);
  comm_ = comm;
  exclusive_ = exclusive;
  return Status::ok();
}

void CommunicatorHold::release() {
  if (comm_ == nullptr) return;
  if (exclusive_) comm_->inOperation.store(false, std::memory_order_release);
  comm_->holders.fetch_sub(1, std::memory_order_acq_rel);
  comm_ = nullptr;
}

}  // namespace hetccl
