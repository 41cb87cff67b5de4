#include "device/host/host_stream.h"

#include <utility>

namespace hetccl {

namespace {
// Marks count enqueued tasks over every host stream of the process: a stream created where a
// destroyed one was never repeats the marks its predecessor handed out.
std::atomic<uint64_t> gLastMark{0};
}  // namespace

void HostStreamProgress::waitForCompleted(uint64_t count) {
  std::unique_lock<std::mutex> lock(mutex);
  taskFinished.wait(lock, [&] { return completedCount >= count; });
}

bool HostStreamProgress::hasCompleted(uint64_t count) {
  std::lock_guard<std::mutex> lock(mutex);
  return completedCount >= count;
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

void HostStream::enqueueOnWorker(std::function<void()> task) {
  {
    std::lock_guard<std::mutex> lock(progress_->mutex);
    progress_->queue.push_back(std::move(task));
    ++progress_->enqueuedCount;
    lastMark_.store(gLastMark.fetch_add(1, std::memory_order_relaxed) + 1, std::memory_order_release);
  }
  progress_->workAvailable.notify_one();
}

void HostStream::synchronize() {
  uint64_t target;
  {
    std::lock_guard<std::mutex> lock(progress_->mutex);
    target = progress_->enqueuedCount;
  }
  progress_->waitForCompleted(target);
}

bool HostStream::idle() {
  std::lock_guard<std::mutex> lock(progress_->mutex);
  return progress_->completedCount == progress_->enqueuedCount;
}

std::unique_ptr<HostEvent> HostStream::recordEvent() {
  std::lock_guard<std::mutex> lock(progress_->mutex);
  return std::make_unique<HostEvent>(progress_, progress_->enqueuedCount);
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
    std::function<void()> task = std::move(state.queue.front());
    state.queue.pop_front();
    lock.unlock();
    task();
    task = nullptr;  // release captured state before reporting completion
    lock.lock();
    ++state.completedCount;
    state.taskFinished.notify_all();
  }
}

}  // namespace hetccl
