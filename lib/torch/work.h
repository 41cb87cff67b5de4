// One operation's Work object.  The operation is enqueued on a hetccl stream when the Work is
// made; the group's completion thread (completion_thread.h) completes the Work once the stream
// has passed it: it then runs the copies out of temporaries, marks the Work done (or failed
// with hetccl's message) and completes its future, which DDP's reducer waits on.
#pragma once

#include <ATen/core/ivalue.h>

#include <atomic>
#include <chrono>
#include <exception>
#include <functional>
#include <vector>

#include "torch_version.h"

namespace hetccl_torch {

class HetcclWork : public c10d::Work {
 public:
  // `outputs`: what result() and the future give; `groupTimeout`: what wait() without a
  // timeout of its own waits at most.
  HetcclWork(int rank, c10d::OpType type, const char* title, std::vector<at::Tensor> outputs,
             std::chrono::milliseconds groupTimeout);

  // Waits until the operation completed; throws its failure, or a timeout once `timeout` (the
  // group's when none is given) has passed.
  bool wait(std::chrono::milliseconds timeout) override;
  // A receive's sender (for a receive from any source, known once the receive was launched).
  int sourceRank() const override;
  void setSourceRank(int rank) { sourceRank_ = rank; }
  bool isCompleted() override;
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override;
  std::vector<at::Tensor> result() override { return outputs_; }

  // For the completion thread: the stream has passed the operation (`failure` null) or the
  // communicator failed.
  void complete(std::exception_ptr failure);

  // Tensors the operation reads or writes that the caller may drop before it completes
  // (temporaries, inputs): held until then.
  std::vector<at::Tensor> keepAlive;
  // Runs once the operation completed, before the Work is marked done (copies a result out of
  // a temporary).
  std::function<void()> afterCompletion;
  // Run before anyone waits for or asks about the Work: a send or receive is held back until
  // then, so that it can be launched in one group with the ones issued after it.  With a
  // target (this Work) it waits until the deadline for what the target's launch needs (the
  // notices of receives from any source, process_group.h flushTransfers); without, it launches
  // what it can now.
  std::function<void(const HetcclWork* target, std::chrono::steady_clock::time_point deadline)> beforeWait;
  // Whether the operation is still held back (not yet launched); cleared by the group.
  std::atomic<bool> held{false};

 private:
  std::vector<at::Tensor> outputs_;
  std::chrono::milliseconds groupTimeout_;
  std::atomic<int> sourceRank_{-1};
  c10::intrusive_ptr<c10::ivalue::Future> future_;
};

}  // namespace hetccl_torch
