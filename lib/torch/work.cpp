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
  if (beforeWait) beforeWait();
  return c10d::Work::isCompleted();
}

c10::intrusive_ptr<c10::ivalue::Future> HetcclWork::getFuture() {
  if (beforeWait) beforeWait();
  return future_;
}

bool HetcclWork::wait(std::chrono::milliseconds timeout) {
  if (beforeWait) beforeWait();
  // torch passes 0 (kNoTimeout) or -1 (unset) for "no timeout of its own".
  const std::chrono::milliseconds limit = timeout.count() <= 0 ? groupTimeout_ : timeout;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    if (!cv_.wait_for(lock, limit, [&] { return completed_; }))
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
