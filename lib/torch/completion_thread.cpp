#include "completion_thread.h"

#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace hetccl_torch {

CompletionThread::CompletionThread(hetcclComm_t comm) : comm_(comm), thread_([this] { run(); }) {}

CompletionThread::~CompletionThread() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  added_.notify_one();
  thread_.join();
}

void CompletionThread::add(c10::intrusive_ptr<HetcclWork> work, hetcclStream_t stream) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_.push_back({std::move(work), stream});
  }
  added_.notify_one();
}

bool CompletionThread::failed() {
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_ != nullptr;
}

std::exception_ptr CompletionThread::checkCommunicator() {
  hetcclResult_t asyncError = hetcclSuccess;
  hetcclResult_t queried = hetcclCommGetAsyncError(comm_, &asyncError);
  if (queried != hetcclSuccess) asyncError = queried;
  if (asyncError == hetcclSuccess) return nullptr;
  // hetcclGetLastError(comm) on this thread now holds the failure's message.
  return std::make_exception_ptr(std::runtime_error(std::string("hetccl: ") + hetcclGetErrorString(asyncError) + ": " +
                                                    hetcclGetLastError(comm_)));
}

void CompletionThread::run() {
  for (;;) {
    std::vector<Pending> batch;
    std::exception_ptr failure;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      added_.wait(lock, [&] { return stopping_ || !pending_.empty(); });
      if (pending_.empty()) return;  // stopping, and nothing left
      batch.assign(pending_.begin(), pending_.end());
      pending_.clear();
      failure = failure_;
    }
    if (!failure) {
      // Each synchronisation waits for everything enqueued on the stream so far, which
      // includes the batch's operations.
      hetcclResult_t synced = hetcclSuccess;
      std::set<hetcclStream_t> streams;
      for (const Pending& item : batch)
        if (streams.insert(item.stream).second && synced == hetcclSuccess)
          synced = hetcclStreamSynchronize(item.stream);
      failure = checkCommunicator();
      if (!failure && synced != hetcclSuccess)
        failure = std::make_exception_ptr(
            std::runtime_error(std::string("hetccl: synchronising the stream failed: ") + hetcclGetLastError(nullptr)));
      if (failure) {
        std::lock_guard<std::mutex> lock(mutex_);
        failure_ = failure;
      }
    }
    for (Pending& item : batch) item.work->complete(failure);
  }
}

}  // namespace hetccl_torch
