// The host backend's StreamFlag: a counter under a mutex.  A stream told to wait for a value
// enqueues a task that blocks its worker until the counter gets there, which holds back every
// task enqueued after it, as a GPU stream's wait-value operation does.
#pragma once

#include <condition_variable>
#include <cstdint>
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

    void waitFor(uint64_t target) {
      std::unique_lock<std::mutex> lock(mutex);
      raised.wait(lock, [&] { return value >= target; });
    }
  };

  void raise(uint64_t value) override {
    {
      std::lock_guard<std::mutex> lock(counter_->mutex);
      if (value > counter_->value) counter_->value = value;
    }
    counter_->raised.notify_all();
  }
  uint64_t value() const override {
    std::lock_guard<std::mutex> lock(counter_->mutex);
    return counter_->value;
  }
  std::shared_ptr<Counter> counter() const { return counter_; }

 private:
  std::shared_ptr<Counter> counter_ = std::make_shared<Counter>();
};

}  // namespace hetccl
