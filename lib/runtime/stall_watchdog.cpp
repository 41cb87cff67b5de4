#include "runtime/stall_watchdog.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace hetccl {

StallWatchdog::StallWatchdog(const Heartbeat& heartbeat, double stallSeconds, OnStall onStall)
    : heartbeat_(heartbeat), stallSeconds_(stallSeconds), onStall_(std::move(onStall)) {
  thread_ = std::thread([this] { watch(); });
}

StallWatchdog::~StallWatchdog() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  stop_.notify_one();
  thread_.join();
}

void StallWatchdog::watch() {
  using Clock = std::chrono::steady_clock;
  const auto period = std::chrono::duration<double>(std::clamp(stallSeconds_ / 20, 0.01, 0.25));
  uint64_t lastBeats = heartbeat_.beats.load(std::memory_order_relaxed);
  Clock::time_point lastSign = Clock::now();
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stop_.wait_for(lock, period, [&] { return stopping_; })) {
    const uint64_t beats = heartbeat_.beats.load(std::memory_order_relaxed);
    const Clock::time_point now = Clock::now();
    if (beats != lastBeats || !heartbeat_.busy.load(std::memory_order_acquire)) {
      lastBeats = beats, lastSign = now;
      continue;
    }
    const double silent = std::chrono::duration<double>(now - lastSign).count();
    if (silent < stallSeconds_) continue;
    lock.unlock();
    onStall_(silent);
    return;  // once: the watched thread is given up
  }
}

}  // namespace hetccl
