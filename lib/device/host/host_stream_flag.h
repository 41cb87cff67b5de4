// The host backend's StreamFlag: a counter under a mutex.  A stream told to wait for a value
// enqueues a task that blocks its worker until the counter gets there, which holds back every
// task enqueued after it, as a GPU stream's wait-value operation does.
//
// A raise wakes the waiters only once it reaches the lowest value one of them waits for: a
// stream's worker waiting for the last of a series of operations (host_stream.h coalesces their
// waits) sleeps through the raises of the earlier ones instead of waking for each, which on a
// 2-core machine took the core the progress thread needed (docs/PERFORMANCE.md).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>

#include "device/device.h"

namespace hetccl {

class HostStreamFlag : public StreamFlag {
 public:
  // What a waiting task holds: shared, because a user's stream may reach its wait only after
  // the flag's owner (a destroyed communicator) is gone.
  struct Counter {
    std::mutex mutex;
    std::condition_variable raised;
    uint64_t value = 0;
    // The lowest value a sleeping waiter waits for (none: the maximum).  Lowered by each waiter
    // before it sleeps, reset by the raise that wakes them all; a waiter still short of its
    // value lowers it again.  Under `mutex`.
    uint64_t lowestAwaited = std::numeric_limits<uint64_t>::max();

    void waitFor(uint64_t target) {
      std::unique_lock<std::mutex> lock(mutex);
      while (value < target) {
        lowestAwaited = std::min(lowestAwaited, target);
        raised.wait(lock);
      }
    }
    void raise(uint64_t to) {
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (to > value) value = to;
        if (value < lowestAwaited) return;
        lowestAwaited = std::numeric_limits<uint64_t>::max();
      }
      raised.notify_all();
    }
  };

  void raise(uint64_t value) override { counter_->raise(value); }
  uint64_t value() const override {
    std::lock_guard<std::mutex> lock(counter_->mutex);
    return counter_->value;
  }
  std::shared_ptr<Counter> counter() const { return counter_; }

 private:
  std::shared_ptr<Counter> counter_ = std::make_shared<Counter>();
};

}  // namespace hetccl
