#include "runtime/progress_engine.h"

#include <chrono>
#include <exception>
#include <new>
#include <utility>

#include "base/log.h"
#include "runtime/backoff.h"

namespace hetccl {

namespace {

// What everything queued, running or waiting for room gets once the communicator is aborted.
Status abortedStatus() { return HETCCL_STATUS(Code::Aborted, "the communicator was aborted"); }

// Streams whose last flag wait the engine remembers (markAfterOwnWait_); beyond, it forgets
// them all, and their next operations wait for their streams as usual.
constexpr size_t kRememberedStreams = 64;

}  // namespace

Status ProgressEngine::create(Device& device, Mode mode, int queueDepth, std::unique_ptr<ProgressEngine>* engine,
                              double stallSeconds) {
  std::unique_ptr<StreamFlag> flag;
  if (mode == Mode::Thread) HETCCL_TRY(device.createStreamFlag(&flag));
  engine->reset(new ProgressEngine(device, mode, queueDepth, std::move(flag), stallSeconds));
  return Status::ok();
}

ProgressEngine::ProgressEngine(Device& device, Mode mode, int queueDepth, std::unique_ptr<StreamFlag> flag,
                               double stallSeconds)
    : device_(device), mode_(mode), queueDepth_(queueDepth > 0 ? queueDepth : 1), flag_(std::move(flag)) {
  if (mode_ != Mode::Thread) return;
  // A recycled flag has counted before: sequences continue above its value.
  submitted_ = completed_ = flag_->value();
  thread_ = std::thread([this] { runThread(); });
  if (stallSeconds > 0)
    watchdog_ =
        std::make_unique<StallWatchdog>(heartbeat_, stallSeconds, [this](double silent) { giveUpThread(silent); });
}

ProgressEngine::~ProgressEngine() {
  if (mode_ != Mode::Thread) return;
  watchdog_.reset();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  workAvailable_.notify_one();
  thread_.join();
}

Status ProgressEngine::submit(const std::vector<StreamHandle>& streams, Work work, AfterFailure afterFailure) {
  if (mode_ == Mode::Caller) {
    for (StreamHandle stream : streams) HETCCL_TRY(device_.synchronizeStream(stream));
    const Status status = work();
    if (!status.isOk() && afterFailure) afterFailure(status);
    return status;
  }
  Operation operation;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    finished_.wait(lock, [&] { return submitted_ - completed_ < queueDepth_ || aborting_ || stalled(); });
    if (stalled()) return failure_;  // nothing would ever run it, nor release its streams
    if (aborting_) return abortedStatus();
    operation.sequence = ++submitted_;
    idle_.store(false, std::memory_order_release);
  }
  // Record before waiting: the event must stand for the work before the call, not for the wait.
  {
    std::lock_guard<std::mutex> lock(orderingMutex_);
    if (markAfterOwnWait_.size() > kRememberedStreams) markAfterOwnWait_.clear();
    for (StreamHandle stream : streams) {
      const uint64_t mark = device_.lastEnqueuedMark(stream);
      const auto own = markAfterOwnWait_.find(stream);
      if (mark == 0 || own == markAfterOwnWait_.end() || own->second != mark) {
        std::unique_ptr<DeviceEvent> ready;
        operation.ordering = device_.recordEvent(stream, &ready);
        if (!operation.ordering.isOk()) break;
        operation.inputsReady.push_back(std::move(ready));
      }
      operation.ordering = device_.streamWaitFlag(stream, *flag_, operation.sequence);
      if (!operation.ordering.isOk()) break;
      markAfterOwnWait_[stream] = device_.lastEnqueuedMark(stream);
    }
  }
  // Queued even when ordering failed: its sequence must still be raised, in order.
  const Status ordering = operation.ordering;
  operation.work = std::move(work);
  operation.afterFailure = std::move(afterFailure);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    queue_.push_back(std::move(operation));
  }
  workAvailable_.notify_one();
  return ordering;
}

bool ProgressEngine::idle() { return mode_ != Mode::Thread || idle_.load(std::memory_order_acquire); }

void ProgressEngine::drain() {
  if (mode_ != Mode::Thread) return;
  std::unique_lock<std::mutex> lock(mutex_);
  const uint64_t target = submitted_;
  finished_.wait(lock, [&] { return completed_ >= target; });
}

Status ProgressEngine::asyncError() {
  if (!failed_.load(std::memory_order_acquire)) return Status::ok();
  std::lock_guard<std::mutex> lock(mutex_);
  return failure_;
}

void ProgressEngine::abort() {
  aborting_ = true;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (failure_.isOk()) failure_ = abortedStatus();
    failed_.store(true, std::memory_order_release);
  }
  workAvailable_.notify_one();
  finished_.notify_all();  // a caller waiting for room
}

// The inputs are ready when the events recorded at submit have completed.  Waited for on this
// thread, not by the device: MPI reads the buffers from here.
Status ProgressEngine::waitForInputs(Operation& operation) {
  Backoff backoff;
  for (std::unique_ptr<DeviceEvent>& ready : operation.inputsReady) {
    while (!ready->query()) {
      if (aborting_) return abortedStatus();
      backoff.pause();
    }
    HETCCL_TRY(ready->synchronize());  // reports a failed stream's error
  }
  return Status::ok();
}

void ProgressEngine::finish(uint64_t sequence, const Status& status) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stalled()) return;  // given up: everything was counted done and released then
    if (!status.isOk() && failure_.isOk()) {
      failure_ = status;
      failed_.store(true, std::memory_order_release);
      HETCCL_WARN("an asynchronous operation failed, the communicator is unusable: %s", status.message().c_str());
    }
  }
  // The result is in place.  Counted before the streams are let run on: a caller that sees the
  // operation done through its stream must find the engine idle too, or its next hetcclCommAbort
  // takes the finished operation for one still running and fails the peers that are still
  // finishing theirs (a remote error on an operation that succeeded everywhere).
  {
    std::lock_guard<std::mutex> lock(mutex_);
    completed_ = sequence;
    if (completed_ == submitted_) idle_.store(true, std::memory_order_release);
  }
  flag_->raise(sequence);
  finished_.notify_all();
}

namespace {

// An exception out of an operation (an allocation that failed) must not end the process from
// this thread: it fails the operation like any other error.
Status runWork(const ProgressEngine::Work& work) {
  try {
    return work();
  } catch (const std::bad_alloc&) {
    return HETCCL_STATUS(Code::SystemError, "out of memory while running an operation");
  } catch (const std::exception& e) {
    return HETCCL_STATUS(Code::InternalError, "an operation threw: %s", e.what());
  } catch (...) {
    return HETCCL_STATUS(Code::InternalError, "an operation threw an unknown exception");
  }
}

}  // namespace

bool ProgressEngine::awaitAbortedThread(double seconds) {
  if (mode_ != Mode::Thread) return true;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  // A given-up thread has come back only once it has left its loop (it may be destroyed then).
  while (stalled() ? !stalledThreadReturned() : heartbeat_.busy.load(std::memory_order_acquire)) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return true;
}

// Everything submitted counts as finished, with the stall as the failure, and every stream is
// let run on: the callers waiting in them get the error although the thread never comes back.
void ProgressEngine::giveUpThread(double silentSeconds) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (stalled()) return;  // the watchdog and an abort may both get here
    // The first failure stays the communicator's (an abort's, or the operation's own timeout
    // when the thread got stuck telling the peers about it).
    if (failure_.isOk())
      failure_ = HETCCL_STATUS(Code::Timeout,
                               "no progress for %.0f s (HETCCL_TIMEOUT): the progress thread has not come back from "
                               "a call into the transport or the device for that long (after a peer failed, MPI "
                               "itself may never return); the communicator is unusable, abort it",
                               silentSeconds);
    HETCCL_WARN("the progress thread has not come back for %.1f s; given up (it and what it uses stay allocated)",
                silentSeconds);
    failed_.store(true, std::memory_order_release);
    stalled_.store(true, std::memory_order_release);
    aborting_ = true;  // should the thread ever return, it stops at once
    completed_ = submitted_;
    queue_.clear();
    idle_.store(true, std::memory_order_release);
  }
  flag_->raise(submitted_);
  finished_.notify_all();
}

void ProgressEngine::runThread() {
  // The device must be current here too: kernels and vendor calls made from this thread.
  const Status activated = device_.activate();
  tCurrentHeartbeat = &heartbeat_;
  for (;;) {
    Operation operation;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      workAvailable_.wait(lock, [&] { return !queue_.empty() || stopping_ || stalled(); });
      if (stalled()) break;
      if (queue_.empty()) break;  // stopping, and drained
      operation = std::move(queue_.front());
      queue_.pop_front();
    }
    beatThisThread();
    heartbeat_.busy.store(true, std::memory_order_release);
    Status status = activated;
    if (status.isOk()) status = operation.ordering;
    if (status.isOk()) status = asyncError();  // poisoned: skipped, streams released
    if (status.isOk()) status = waitForInputs(operation);
    bool workFailed = false;
    if (status.isOk()) {
      status = runWork(operation.work);
      workFailed = !status.isOk();
    }
    operation.work = nullptr;  // its captures (plans, buffers) go before the completion is seen
    operation.inputsReady.clear();
    finish(operation.sequence, status);
    if (workFailed && operation.afterFailure) operation.afterFailure(status);
    heartbeat_.busy.store(false, std::memory_order_release);
  }
  tCurrentHeartbeat = nullptr;
  if (stalled()) stalledThreadReturned_.store(true, std::memory_order_release);
}

}  // namespace hetccl
