// How a polling loop waits when nothing moved: poll flat out for a few microseconds (a small
// message from a peer is usually about to land, and even a yield is a system call that costs
// as much as the whole exchange), then yield for a while (ranks may outnumber cores), then
// sleep, longer each time up to a cap.  A progress thread that spun for a whole transfer would
// take a core from the application's own work, which is exactly the work the transfer should
// overlap with; the cap bounds the latency a sleep adds to a step that completes meanwhile.
#pragma once

#include <algorithm>
#include <chrono>
#include <thread>

#include "runtime/heartbeat.h"

namespace hetccl {

class Backoff {
 public:
  // `yieldAtOnce`: this host's ranks outnumber its hardware threads, so the peer a wait is for
  // is likely off a core; a poll that found nothing yields at once instead of spinning first
  // (what Open MPI does when oversubscribed: its progress loop yields on every idle pass).
  // Spinning there kept a descheduled peer off the core it needed: with shared-memory rings,
  // 4 ranks on 2 cores took 34.6 us for an 8-byte all-reduce where the library before the
  // rings took 13.7 in the same sweep (docs/PERFORMANCE.md, "Shared-memory rings").
  explicit Backoff(bool yieldAtOnce = false)
      : heartbeat_(tCurrentHeartbeat),
        pollsWithoutClock_(yieldAtOnce ? 0 : kPollsWithoutClock),
        pollFor_(yieldAtOnce ? std::chrono::microseconds{0} : kPollFor) {}

  // The waiting thread's heartbeat (heartbeat.h), for a loop that beats on every turn.
  Heartbeat* heartbeat() const { return heartbeat_; }
  // Call when an iteration made progress.
  void reset() { idlePolls_ = 0, idleSince_ = Clock::time_point{}, sleep_ = kFirstSleep; }

  // How long the loop has gone without progress, in seconds; 0 while it is still in its first
  // polls (a few microseconds at most).
  double idleSeconds() const {
    if (idleSince_ == Clock::time_point{}) return 0;
    return std::chrono::duration<double>(Clock::now() - idleSince_).count();
  }

  // Call when an iteration made none.
  void pause() {
    beat(heartbeat_);
    // The first polls do not even read the clock: a small message's whole wait is shorter.
    if (++idlePolls_ <= pollsWithoutClock_) return;
    const Clock::time_point now = Clock::now();
    if (idleSince_ == Clock::time_point{}) idleSince_ = now;
    if (now - idleSince_ < pollFor_) return;
    if (now - idleSince_ < kYieldFor) {
      std::this_thread::yield();
      return;
    }
    std::this_thread::sleep_for(sleep_);
    sleep_ = std::min(sleep_ * 2, kLongestSleep);
  }

 private:
  using Clock = std::chrono::steady_clock;
  // Sleeping only after a millisecond keeps two peers from both sleeping while each waits for
  // the other (each wait would then cost a wake-up); a longer wait is a transfer in flight,
  // and 200 us is little against it.
  static constexpr int kPollsWithoutClock = 64;
  static constexpr std::chrono::microseconds kPollFor{5};
  static constexpr std::chrono::microseconds kYieldFor{1000};
  static constexpr std::chrono::microseconds kFirstSleep{25};
  static constexpr std::chrono::microseconds kLongestSleep{200};

  Heartbeat* heartbeat_;  // the waiting thread's, read once (heartbeat.h)
  int pollsWithoutClock_;
  std::chrono::microseconds pollFor_;
  int idlePolls_ = 0;
  Clock::time_point idleSince_{};
  std::chrono::microseconds sleep_ = kFirstSleep;
};

}  // namespace hetccl
