// A thread's sign of life for the stall watchdog (stall_watchdog.h).  Every polling loop a
// progress thread runs (the executor's, the wait for an operation's inputs, the call check)
// beats once per turn; a thread that stops beating while an operation runs is stuck inside a
// call that never returns, which its own HETCCL_TIMEOUT check cannot see (it is never reached).
// Seen on real links: after a peer was killed, Open MPI's MPI_Test looped inside libevent for
// good (1 run in 12 under CTest), and the rank hung instead of ending with hetcclTimeout.
#pragma once

#include <atomic>
#include <cstdint>

namespace hetccl {

struct Heartbeat {
  std::atomic<uint64_t> beats{0};
  std::atomic<bool> busy{false};  // an operation is running: only then does silence mean a stall
};

// The heartbeat of the calling thread; null on threads nobody watches (a caller's own).
inline thread_local Heartbeat* tCurrentHeartbeat = nullptr;

// Costs a relaxed load and store (only this thread writes the count): loops call it every turn.
inline void beat(Heartbeat* heartbeat) {
  if (heartbeat)
    heartbeat->beats.store(heartbeat->beats.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
}
inline void beatThisThread() { beat(tCurrentHeartbeat); }
// A loop may read its thread's heartbeat once (tCurrentHeartbeat) and beat(it) every turn: in
// a shared library each read of a thread_local is a call (__tls_get_addr), which showed in a
// small call's profile, and a thread's heartbeat stays the same while it runs an operation.

}  // namespace hetccl
