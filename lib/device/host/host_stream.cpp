#include "device/host/host_stream.h"

#include <algorithm>
#include <utility>

namespace hetccl {

namespace {
// Marks count enqueued tasks over every host stream of the process: a stream created where a
// destroyed one was never repeats the marks its predecessor handed out.
std::atomic<uint64_t> gLastMark{0};
}  // namespace

void HostStreamProgress::waitForCompleted(uint64_t count) {
  std::unique_lock<std::mutex> lock(mutex);
  while (completedCount < count) {
    lowestAwaited = std::min(lowestAwaited, count);
    taskFinished.wait(lock);
  }
}

bool HostStreamProgress::hasCompleted(uint64_t count) {
  return completedCount.load(std::memory_order_acquire) >= count;
}

Status HostEvent::synchronize() {
  wait();
  return Status::ok();
}

HostStream::HostStream(Mode mode) : mode_(mode), progress_(std::make_shared<HostStreamProgress>()) {
  if (mode_ == Mode::Worker) worker_ = std::thread([this] { runWorker(); });
}

HostStream::~HostStream() {
  if (mode_ == Mode::Inline) return;
  {
    std::lock_guard<std::mutex> lock(progress_->mutex);
    progress_->stopping = true;
  }
  progress_->workAvailable.notify_one();
  worker_.join();
}

void HostStream::waitFlag(std::shared_ptr<HostStreamFlag::Counter> flag, uint64_t value) {
  if (mode_ == Mode::Inline) {
    flag->waitFor(value);
    return;
  }
  enqueueOnWorker(HostTask{nullptr, std::move(flag), value});
}

void HostStream::enqueueOnWorker(HostTask task) {
  {
    std::lock_guard<std::mutex> lock(progress_->mutex);
    progress_->queue.push_back(std::move(task));
    progress_->enqueuedCount.store(progress_->enqueuedCount.load(std::memory_order_relaxed) + 1,
                                   std::memory_order_release);
    lastMark_.store(gLastMark.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  progress_->workAvailable.notify_one();
}

void HostStream::synchronize() {
  if (mode_ == Mode::Inline) return;  // its tasks ran as they were enqueued
  // What this thread enqueued is counted (its own stores); another thread's enqueue racing with
  // this call may or may not be waited for, as on a GPU stream.
  const uint64_t target = progress_->enqueuedCount.load(std::memory_order_acquire);
  if (progress_->hasCompleted(target)) return;
  progress_->waitForCompleted(target);
}

bool HostStream::idle() {
  if (mode_ == Mode::Inline) return true;
  const uint64_t enqueued = progress_->enqueuedCount.load(std::memory_order_acquire);
  return progress_->hasCompleted(enqueued);
}

std::unique_ptr<HostEvent> HostStream::recordEvent() {
  auto event = std::make_unique<HostEvent>(progress_, 0);
  recordEvent(event.get());
  return event;
}

// An inline stream counts nothing: its events are recorded at 0, complete at once, unlocked.
void HostStream::recordEvent(HostEvent* event) {
  if (mode_ == Mode::Inline) {
    event->rerecord(progress_, 0);
    return;
  }
  std::lock_guard<std::mutex> lock(progress_->mutex);
  event->rerecord(progress_, progress_->enqueuedCount.load(std::memory_order_relaxed));
}

void HostStream::waitEvent(const HostEvent& event) {
  // A copy of the event: the caller may destroy its event right after this call.
  enqueue([awaited = event] { awaited.wait(); });
}

void HostStream::runWorker() {
  HostStreamProgress& state = *progress_;
  std::unique_lock<std::mutex> lock(state.mutex);
  for (;;) {
    state.workAvailable.wait(lock, [&] { return !state.queue.empty() || state.stopping; });
    if (state.queue.empty()) return;  // stopping, and drained
    HostTask task = std::move(state.queue.front());
    state.queue.pop_front();
    // Waits for one flag queued back to back are one wait, for the highest value (a flag only
    // rises): a series of operations costs the worker one wake-up, not one each.
    uint64_t tasks = 1;
    while (task.flag && !state.queue.empty() && state.queue.front().flag == task.flag) {
      task.value = std::max(task.value, state.queue.front().value);
      state.queue.pop_front();
      ++tasks;
    }
    lock.unlock();
    if (task.flag)
      task.flag->waitFor(task.value);
    else
      task.run();
    task = HostTask{};  // release captured state before reporting completion
    lock.lock();
    const uint64_t completed = state.completedCount.load(std::memory_order_relaxed) + tasks;
    state.completedCount.store(completed, std::memory_order_release);
    if (completed >= state.lowestAwaited) {
      state.lowestAwaited = UINT64_MAX;
      state.taskFinished.notify_all();
    }
  }
}

}  // namespace hetccl
