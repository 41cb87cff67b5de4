// The progress engine: where a communicator's operations run, in call order.  A call orders
// its operation on the caller's streams and hands it over (submit), and then returns:
//   - the operation starts only after the work enqueued on those streams before the call
//     (an event recorded there, which the engine's thread waits for);
//   - work enqueued on those streams after the call waits until the operation has finished
//     (each stream waits for the device's host-written flag to reach the operation's
//     sequence number, which the engine raises when the operation is done).
// The engine's thread runs each operation's work (the executor driving a plan over the
// transport with non-blocking calls only, reductions on the communicator's own stream), so it
// always returns to this loop, where an abort can find it.
//
// A thread stuck inside a call that never returns (an MPI that loops after a peer died) is
// caught by a watchdog (stall_watchdog.h) when a stall time is given: the engine then fails
// with Code::Timeout, releases every stream and refuses new work; the stuck thread and what it
// uses can never be freed (stalled(); the communicator abandons them).
//
// Caller mode runs the same operations on the calling thread instead, for an MPI that does
// not allow calls from two threads at once: the streams are drained first and the call
// returns when the operation has completed.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "device/device.h"
#include "runtime/heartbeat.h"
#include "runtime/stall_watchdog.h"

namespace hetccl {

class ProgressEngine {
 public:
  enum class Mode { Thread, Caller };
  // One operation's work: it may only start once its inputs are ready, and must have finished
  // every device work of its own when it returns.
  using Work = std::function<Status()>;

  // Thread mode needs the device's StreamFlag; without one, creation fails (callers then fall
  // back to caller mode).  `queueDepth`: operations queued or running before submit waits.
  // `stallSeconds` > 0 (thread mode): how long the thread may go without a heartbeat while an
  // operation runs before the engine gives it up.
  static Status create(Device& device, Mode mode, int queueDepth, std::unique_ptr<ProgressEngine>* engine,
                       double stallSeconds = 0);
  // Lets every queued operation finish (unless aborted), then stops the thread.  Must not be
  // called on a stalled engine whose thread has not come back (it would wait for it forever).
  ~ProgressEngine();
  ProgressEngine(const ProgressEngine&) = delete;
  ProgressEngine& operator=(const ProgressEngine&) = delete;

  Mode mode() const { return mode_; }

  // What to do about a work's own failure once its streams have been released (tell the
  // peers): a call it makes that never returns then holds up no caller.
  using AfterFailure = std::function<void(const Status&)>;

  // Orders `work` on `streams` (distinct) and queues it, or in caller mode runs it.  An error
  // from thread mode is about the ordering itself (the operation is then skipped, its streams
  // still released); the work's own failure is reported later by asyncError(), and handed to
  // `afterFailure` (also in caller mode, before submit returns it).
  Status submit(const std::vector<StreamHandle>& streams, Work work, AfterFailure afterFailure = nullptr);
  // Nothing queued or running: work done now on the calling thread cannot overtake anything.
  bool idle();
  // Blocks until every operation submitted so far has finished.
  void drain();
  // The first failure of a queued operation, or ok.  After one, queued operations are
  // skipped (their streams released): the communicator is poisoned.
  Status asyncError();
  // Skips every operation not yet started and asks the running one to stop (its work polls
  // abortRequested()); streams are released.  Safe from any thread.
  void abort();
  const std::atomic<bool>& abortRequested() const { return aborting_; }
  // After abort(): waits up to `seconds` for the thread to leave the operation it runs (it
  // polls the abort).  False when it has not: then giveUpThread(), or wait on.
  bool awaitAbortedThread(double seconds);
  // What the watchdog does to a thread that does not come back (see stalled()); once.
  void giveUpThread(double silentSeconds);
  // The watchdog gave the thread up: it is still inside an operation, which may never return.
  bool stalled() const { return stalled_.load(std::memory_order_acquire); }
  // Whether the thread has left the operation it was given up in (then it may be destroyed).
  bool stalledThreadReturned() const { return stalledThreadReturned_.load(std::memory_order_acquire); }

 private:
  struct Operation {
    uint64_t sequence = 0;
    // Per stream, unless it held nothing but this engine's own waits (markAfterOwnWait_).
    std::vector<std::unique_ptr<DeviceEvent>> inputsReady;
    Work work;
    AfterFailure afterFailure;
    Status ordering;  // a failure to order it on its streams: skipped
  };

  ProgressEngine(Device& device, Mode mode, int queueDepth, std::unique_ptr<StreamFlag> flag, double stallSeconds);
  void runThread();
  Status waitForInputs(Operation& operation);
  void finish(uint64_t sequence, const Status& status);

  Device& device_;
  const Mode mode_;
  const uint64_t queueDepth_;
  std::unique_ptr<StreamFlag> flag_;  // raised to each operation's sequence when it is done
  std::atomic<bool> aborting_{false};

  std::mutex mutex_;
  std::condition_variable workAvailable_;  // the thread waits for operations
  std::condition_variable finished_;       // submit (room), drain and idle wait for completions
  std::deque<Operation> queue_;
  // Per stream, its mark (Device::lastEnqueuedMark) just after this engine's last flag wait
  // on it.  A stream still at that mark at the next submit holds nothing but this engine's own
  // earlier operations, which the thread runs in order anyway: the new one need not wait for
  // the stream to pass them.  On the host device that wait was a hand-off to the stream's
  // worker and back for every operation of a back-to-back series (docs/PERFORMANCE.md).
  std::mutex orderingMutex_;
  std::unordered_map<StreamHandle, uint64_t> markAfterOwnWait_;
  uint64_t submitted_ = 0;  // sequence of the last operation submitted
  uint64_t completed_ = 0;  // sequence of the last operation finished
  Status failure_;
  // Lock-free copies for the calling thread's checks on every call (a small operation's whole
  // budget is about a microsecond): written under the mutex, read without it.
  std::atomic<bool> idle_{true};
  std::atomic<bool> failed_{false};
  bool stopping_ = false;
  Heartbeat heartbeat_;
  std::atomic<bool> stalled_{false};
  std::atomic<bool> stalledThreadReturned_{false};
  std::thread thread_;                       // starts once the state above exists
  std::unique_ptr<StallWatchdog> watchdog_;  // after the thread: watches it
};

}  // namespace hetccl
