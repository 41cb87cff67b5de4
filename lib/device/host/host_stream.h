// The host backend's stream: one worker thread that runs enqueued tasks in FIFO order, the way
// a GPU stream runs kernels and copies. Events are sequence numbers: "every task enqueued
// before the record has finished" is "the completed-task count has reached the record's".
// An inline stream has no worker: enqueue runs the task on the calling thread at once, so its
// events are complete when recorded (small operations skip two thread hand-overs).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "device/device.h"
#include "device/host/host_stream_flag.h"

namespace hetccl {

// A task of a host stream: work to run, or a wait for a flag (streamWaitFlag), which the worker
// recognises so that it can wait once for a series of them (runWorker).
struct HostTask {
  std::function<void()> run;
  std::shared_ptr<HostStreamFlag::Counter> flag;  // set for a flag wait
  uint64_t value = 0;                             // the value it waits for
};

// What the worker, the stream's users and its events share. Events hold it by shared_ptr, so an
// event outlives its stream safely (a destroyed stream has drained: its events are complete).
struct HostStreamProgress {
  std::mutex mutex;
  std::condition_variable workAvailable;  // the worker waits on it for tasks
  std::condition_variable taskFinished;   // synchronize() and events wait on it
  std::deque<HostTask> queue;
  // Both counts are written under the mutex and read without it: they only grow, and an
  // event's query (polled by the executor at every round), a stream's idle check and a
  // synchronize with nothing left to run (each small call makes both) need no lock.
  std::atomic<uint64_t> enqueuedCount{0};
  std::atomic<uint64_t> completedCount{0};
  // The lowest count a sleeping waiter waits for: the worker wakes them when it gets there,
  // not at every task (a caller synchronizing a series of operations slept through the rest).
  uint64_t lowestAwaited = UINT64_MAX;
  bool stopping = false;

  void waitForCompleted(uint64_t count);
  bool hasCompleted(uint64_t count);
};

class HostEvent : public DeviceEvent {
 public:
  HostEvent(std::shared_ptr<HostStreamProgress> progress, uint64_t sequence)
      : progress_(std::move(progress)), sequence_(sequence) {}
  // Recorded again, in place (Device::recordEvent reuses an event it is handed).
  void rerecord(const std::shared_ptr<HostStreamProgress>& progress, uint64_t sequence) {
    if (progress_ != progress) progress_ = progress;
    sequence_ = sequence;
  }
  bool query() override { return progress_->hasCompleted(sequence_); }
  Status synchronize() override;
  // Blocks the calling thread (a worker, for a cross-stream wait) until the event completes.
  void wait() const { progress_->waitForCompleted(sequence_); }

 private:
  std::shared_ptr<HostStreamProgress> progress_;
  uint64_t sequence_;  // completedCount that marks the event done
};

class HostStream {
 public:
  enum class Mode { Worker, Inline };
  explicit HostStream(Mode mode = Mode::Worker);
  // Runs everything already enqueued, then joins the worker.
  ~HostStream();
  HostStream(const HostStream&) = delete;
  HostStream& operator=(const HostStream&) = delete;

  // Tasks must not throw: like a kernel, a task has nobody to report to.  An inline stream runs
  // the task here and counts nothing (its events are complete, it is always idle), without
  // wrapping the task in a std::function: that allocation and the lock were a good part of a
  // small operation's cost.
  template <typename Task>
  void enqueue(Task&& task) {
    if (mode_ == Mode::Inline) {
      task();
      return;
    }
    enqueueOnWorker(HostTask{std::function<void()>(std::forward<Task>(task)), nullptr, 0});
  }
  // Work enqueued after this runs once `flag` has reached `value`.  Consecutive waits for one
  // flag are waited for together: the worker sleeps until the last one's value.
  void waitFlag(std::shared_ptr<HostStreamFlag::Counter> flag, uint64_t value);
  // Blocks until every task enqueued before this call has run.
  void synchronize();
  // Whether every task enqueued so far has run.
  bool idle();
  // The mark of the last task enqueued (Device::lastEnqueuedMark); 0 for an inline stream,
  // whose tasks have run by the time anyone asks.
  uint64_t lastEnqueuedMark() const { return lastMark_.load(std::memory_order_acquire); }
  std::unique_ptr<HostEvent> recordEvent();
  // recordEvent into an existing event (of any host stream): no allocation.
  void recordEvent(HostEvent* event);
  // Tasks enqueued after this call start only once `event` (of any stream) has completed.
  void waitEvent(const HostEvent& event);

 private:
  void enqueueOnWorker(HostTask task);
  void runWorker();

  const Mode mode_;
  std::shared_ptr<HostStreamProgress> progress_;
  std::atomic<uint64_t> lastMark_{0};
  std::thread worker_;  // last: starts once the state above exists; none for an inline stream
};

}  // namespace hetccl
