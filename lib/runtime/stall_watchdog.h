// Watches a progress thread's heartbeat: when an operation has been running and the thread has
// not beaten for `stallSeconds`, it calls onStall once, from its own thread, so the callers
// waiting for that operation can be released with an error although the stuck thread never
// returns.  Samples 20 times per stallSeconds, and at least every 250 ms (one wake-up per
// communicator, nothing on the watched thread's path): the stall is noticed within two samples
// of being due.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "runtime/heartbeat.h"

namespace hetccl {

class StallWatchdog {
 public:
  using OnStall = std::function<void(double silentSeconds)>;
  StallWatchdog(const Heartbeat& heartbeat, double stallSeconds, OnStall onStall);
  ~StallWatchdog();
  StallWatchdog(const StallWatchdog&) = delete;
  StallWatchdog& operator=(const StallWatchdog&) = delete;

 private:
  void watch();

  const Heartbeat& heartbeat_;
  const double stallSeconds_;
  const OnStall onStall_;
  std::mutex mutex_;
  std::condition_variable stop_;
  bool stopping_ = false;
  std::thread thread_;  // last: starts once the state above exists
};

}  // namespace hetccl
