// A lock for short critical sections that one thread takes almost every time: taking it
// uncontended is one atomic exchange and releasing it one store, where a pthread mutex costs
// two atomic read-modify-writes and two library calls -- on a small operation's path, which
// takes such a lock several times per message, that was a visible part of its cost.  A waiter
// spins briefly, then yields: the holder may be off its core on an oversubscribed host.
#pragma once

#include <atomic>
#include <thread>

namespace hetccl {

class SpinLock {
 public:
  void lock() {
    int spins = 0;
    while (locked_.exchange(true, std::memory_order_acquire)) {
      while (locked_.load(std::memory_order_relaxed)) {
        if (spins < kSpinsBeforeYield) {
          ++spins;
          relax();
        } else {
          std::this_thread::yield();
        }
      }
    }
  }
  void unlock() { locked_.store(false, std::memory_order_release); }

 private:
  static constexpr int kSpinsBeforeYield = 64;
  static void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
  }

  std::atomic<bool> locked_{false};
};

}  // namespace hetccl
