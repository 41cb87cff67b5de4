#include "work.h"

#include <stdexcept>
#include <string>

namespace hetccl_torch {

HetcclWork::HetcclWork(int rank, c10d::OpType type, const char* title, std::vector<at::Tensor> outputs,
                       std::chrono::milliseconds groupTimeout)
    : c10d::Work(rank, type, title),
      outputs_(std::move(outputs)),
      groupTimeout_(groupTimeout),
      future_(c10::make_intrusive<c10::ivalue::Future>(c10::ListType::create(c10::TensorType::get()))) {}

bool HetcclWork::isCompleted() {
  if (beforeWait) beforeWait(nullptr, std::chrono::steady_clock::now());
  return c10d::Work::isCompleted();
}

// A receive from any source is launched (its future can complete) once its sender is known:
// this waits for that, as the future's waiters do not call back into the Work.
c10::intrusive_ptr<c10::ivalue::Future> HetcclWork::getFuture() {
  if (beforeWait) beforeWait(this, std::chrono::steady_clock::now() + groupTimeout_);
  return future_;
}

int HetcclWork::sourceRank() const {
  const int rank = sourceRank_;
  if (rank < 0) throw std::runtime_error("hetccl: sourceRank() is known for a receive only, once it was waited for");
  return rank;
}

bool HetcclWork::wait(std::chrono::milliseconds timeout) {
  // torch passes 0 (kNoTimeout) or -1 (unset) for "no timeout of its own".
  const std::chrono::milliseconds limit = timeout.count() <= 0 ? groupTimeout_ : timeout;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  // Held behind a receive from any source whose sender is not known yet, it stays held past
  // the deadline: the wait below then times out.
  if (beforeWait) beforeWait(this, deadline);
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_until(lock, deadline, [&] { return completed_; }))
      throw std::runtime_error("hetccl: the operation did not complete within " + std::to_string(limit.count()) +
                               " ms (a peer stopped taking part?)");
    if (exception_) std::rethrow_exception(exception_);
  }
  return true;
}

void HetcclWork::complete(std::exception_ptr failure) {
  if (!failure && afterCompletion) {
    try {
      afterCompletion();
    } catch (...) {
      failure = std::current_exception();
    }
  }
  keepAlive.clear();
  finish(failure);
  if (failure)
    future_->setError(failure);
  else
    future_->markCompleted(c10::IValue(outputs_));
}

}  // namespace hetccl_torch
