// The thread that completes a process group's Work objects.  Operations run on hetccl's
// streams in the order they were enqueued, so the thread takes the Works queued so far,
// synchronises their streams (which waits only for what was enqueued before), asks the
// communicator whether an operation failed, and completes them in order.  A failure is
// final: the Works after it fail with the same message, as the communicator is then unusable.
#pragma once

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>

#include "hetccl/hetccl.h"
#include "work.h"

namespace hetccl_torch {

class CompletionThread {
 public:
  explicit CompletionThread(hetcclComm_t comm);
  // Completes every queued Work first.
  ~CompletionThread();
  CompletionThread(const CompletionThread&) = delete;
  CompletionThread& operator=(const CompletionThread&) = delete;

  // `work`'s operation was enqueued on `stream` just now.
  void add(c10::intrusive_ptr<HetcclWork> work, hetcclStream_t stream);
  // Whether an operation failed (the communicator must then be aborted, not destroyed).
  bool failed();

 private:
  void run();
  std::exception_ptr checkCommunicator();

  hetcclComm_t comm_;
  struct Pending {
    c10::intrusive_ptr<HetcclWork> work;
    hetcclStream_t stream;
  };
  std::mutex mutex_;
  std::condition_variable added_;
  std::deque<Pending> pending_;
  bool stopping_ = false;
  std::exception_ptr failure_;  // the first failure, given to every Work after it
  std::thread thread_;
};

}  // namespace hetccl_torch
