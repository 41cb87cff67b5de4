// Which communicators of this process are live, and which API calls are inside one.  Handles are
// plain pointers, so a destroyed one must be recognised rather than dereferenced; and since a
// watchdog thread may abort a communicator while the training thread is inside a call on it
// (PyTorch's pattern with NCCL), destroy and abort first unregister it, then wait until no call
// holds it.  Operations hold it exclusively: one communicator is used by one thread at a time
// (NCCL's rule), and a second thread's call is refused with InvalidUsage instead of racing.
#pragma once

#include "base/status.h"

struct hetcclComm;

namespace hetccl {

void registerCommunicator(hetcclComm* comm);
// Removes `comm` from the live set: no new call gets in.  False when it was not live
// (destroyed twice, by two threads, or never created).
bool unregisterCommunicator(hetcclComm* comm);
// Waits until no call holds an unregistered communicator.
void waitUntilReleased(hetcclComm* comm);

// One API call's hold on a communicator, released when the hold goes.
class CommunicatorHold {
 public:
  CommunicatorHold() = default;
  ~CommunicatorHold() { release(); }
  CommunicatorHold(const CommunicatorHold&) = delete;
  CommunicatorHold& operator=(const CommunicatorHold&) = delete;

  // InvalidArgument when `comm` is null or not live; with `exclusive`, InvalidUsage while
  // another call holds it exclusively.
  Status acquire(hetcclComm* comm, bool exclusive);
  void release();

 private:
  hetcclComm* comm_ = nullptr;
  bool exclusive_ = false;
};

}  // namespace hetccl
