// The progress engine over the host device: operations run in submission order on the
// engine's thread, only once the work enqueued on their streams before the call has run, and
// work enqueued after the call waits for them (the host-written flag); a bounded queue makes
// callers wait; a failure poisons what follows but still releases the streams; abort skips what
// is queued.  Caller mode runs the same operations at once.  Also the host device's stream
// flags and inline streams, which the engine and the inline path rely on.
#include "runtime/progress_engine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "device/host/host_device.h"
#include "runtime/heartbeat.h"

namespace hetccl {
namespace {

void pause() { std::this_thread::sleep_for(std::chrono::milliseconds(30)); }

// A stream held shut by a flag of its own until open(): work enqueued on it stays pending.
class ClosedStream {
 public:
  explicit ClosedStream(Device& device) : device_(device) {
    EXPECT_TRUE(device.createStream(&stream_).isOk());
    EXPECT_TRUE(device.createStreamFlag(&gate_).isOk());
    EXPECT_TRUE(device.streamWaitFlag(stream_, *gate_, 1).isOk());
  }
  ~ClosedStream() {
    open();
    (void)device_.destroyStream(stream_);
  }
  void open() { gate_->raise(1); }
  StreamHandle handle() const { return stream_; }

 private:
  Device& device_;
  StreamHandle stream_ = nullptr;
  std::unique_ptr<StreamFlag> gate_;
};

std::unique_ptr<ProgressEngine> makeEngine(Device& device, ProgressEngine::Mode mode, int depth = 64,
                                           double stallSeconds = 0) {
  std::unique_ptr<ProgressEngine> engine;
  EXPECT_TRUE(ProgressEngine::create(device, mode, depth, &engine, stallSeconds).isOk());
  return engine;
}

// An operation that blocks without a heartbeat until release(), as a call that never returns.
class StuckCall {
 public:
  ProgressEngine::Work work() {
    return [this] {
      started_ = true;
      std::unique_lock<std::mutex> lock(mutex_);
      released_.wait(lock, [&] { return release_; });
      return Status::ok();
    };
  }
  bool started() const { return started_; }
  void release() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      release_ = true;
    }
    released_.notify_all();
  }

 private:
  std::atomic<bool> started_{false};
  std::mutex mutex_;
  std::condition_variable released_;
  bool release_ = false;
};

TEST(ProgressEngine, WaitsForEarlierStreamWorkAndHoldsBackLaterWork) {
  HostDevice device;
  ClosedStream stream(device);
  auto engine = makeEngine(device, ProgressEngine::Mode::Thread);
  int* cells = nullptr;  // [0] input, [1] written by the operation, [2] copied after the call
  ASSERT_TRUE(device.allocate(reinterpret_cast<void**>(&cells), 3 * sizeof(int)).isOk());
  cells[0] = 0, cells[1] = 0, cells[2] = 0;
  static const int kInput = 42;
  ASSERT_TRUE(device.copyAsync(&cells[0], &kInput, sizeof(int), stream.handle()).isOk());  // before the call
  std::atomic<bool> ran{false};
  ASSERT_TRUE(engine
                  ->submit({stream.handle()},
                           [&] {
                             cells[1] = cells[0] + 1;
                             ran = true;
                             return Status::ok();
                           })
                  .isOk());
  ASSERT_TRUE(device.copyAsync(&cells[2], &cells[1], sizeof(int), stream.handle()).isOk());  // after the call
  pause();
  EXPECT_FALSE(ran) << "the operation started before the work enqueued ahead of it";
  EXPECT_FALSE(engine->idle());
  stream.open();
  ASSERT_TRUE(device.synchronizeStream(stream.handle()).isOk());
  EXPECT_TRUE(ran);
  EXPECT_EQ(cells[1], 43);
  EXPECT_EQ(cells[2], 43) << "work enqueued after the call ran before the operation finished";
  engine->drain();
  EXPECT_TRUE(engine->idle());
  EXPECT_TRUE(device.release(cells).isOk());
}

// Back to back on one stream, an operation does not wait for the stream to pass the engine's
// own wait for the one before (the thread runs them in order anyway), but work the caller
// enqueued between two operations still holds the second back: here a copy behind a closed
// gate, after a first operation.
TEST(ProgressEngine, UserWorkBetweenTwoOperationsStillHoldsTheSecondBack) {
  HostDevice device;
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  auto engine = makeEngine(device, ProgressEngine::Mode::Thread);
  std::atomic<int> ran{0};
  auto count = [&] {
    ++ran;
    return Status::ok();
  };
  ASSERT_TRUE(engine->submit({stream}, count).isOk());
  ASSERT_TRUE(engine->submit({stream}, count).isOk());  // nothing of the caller's in between
  engine->drain();
  EXPECT_EQ(ran, 2);
  std::unique_ptr<StreamFlag> gate;
  ASSERT_TRUE(device.createStreamFlag(&gate).isOk());
  ASSERT_TRUE(device.streamWaitFlag(stream, *gate, 1).isOk());  // the caller's work, held back
  ASSERT_TRUE(engine->submit({stream}, count).isOk());
  pause();
  EXPECT_EQ(ran, 2) << "an operation started before the work the caller enqueued ahead of it";
  gate->raise(1);
  engine->drain();
  EXPECT_EQ(ran, 3);
  EXPECT_TRUE(device.synchronizeStream(stream).isOk());
  EXPECT_TRUE(device.destroyStream(stream).isOk());
}

// The marks the engine compares: a new one for every task on any stream, never one a
// destroyed stream handed out, none for an inline stream.
TEST(HostStream, MarksTellWhetherAnythingWasEnqueuedInBetween) {
  HostDevice device;
  StreamHandle first = nullptr, second = nullptr, inlineStream = nullptr;
  ASSERT_TRUE(device.createStream(&first).isOk());
  ASSERT_TRUE(device.createStream(&second).isOk());
  ASSERT_TRUE(device.createInlineStream(&inlineStream).isOk());
  // One cell per stream: two streams' copies into one cell would race (ThreadSanitizer).
  int firstCell = 0, secondCell = 0, inlineCell = 0, againCell = 0;
  static const int kOne = 1;
  ASSERT_TRUE(device.copyAsync(&firstCell, &kOne, sizeof firstCell, first).isOk());
  const uint64_t mark = device.lastEnqueuedMark(first);
  EXPECT_NE(mark, 0u);
  EXPECT_EQ(device.lastEnqueuedMark(first), mark);
  ASSERT_TRUE(device.copyAsync(&secondCell, &kOne, sizeof secondCell, second).isOk());
  EXPECT_EQ(device.lastEnqueuedMark(first), mark) << "another stream's task changed this one's mark";
  ASSERT_TRUE(device.copyAsync(&firstCell, &kOne, sizeof firstCell, first).isOk());
  EXPECT_GT(device.lastEnqueuedMark(first), mark);
  ASSERT_TRUE(device.copyAsync(&inlineCell, &kOne, sizeof inlineCell, inlineStream).isOk());
  EXPECT_EQ(device.lastEnqueuedMark(inlineStream), 0u);
  const uint64_t last = device.lastEnqueuedMark(first);
  ASSERT_TRUE(device.destroyStream(first).isOk());
  StreamHandle again = nullptr;
  ASSERT_TRUE(device.createStream(&again).isOk());
  ASSERT_TRUE(device.copyAsync(&againCell, &kOne, sizeof againCell, again).isOk());
  EXPECT_GT(device.lastEnqueuedMark(again), last) << "a new stream repeated a destroyed one's mark";
  for (StreamHandle stream : {second, inlineStream, again}) EXPECT_TRUE(device.destroyStream(stream).isOk());
}

TEST(ProgressEngine, RunsOperationsInSubmissionOrderOnOneThread) {
  HostDevice device;
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  auto engine = makeEngine(device, ProgressEngine::Mode::Thread, 16);
  std::vector<int> order;  // touched by the engine's thread only, until drain()
  std::thread::id engineThread;
  for (int i = 0; i < 3000; ++i)
    ASSERT_TRUE(engine
                    ->submit({stream},
                             [&order, &engineThread, i] {
                               order.push_back(i);
                               engineThread = std::this_thread::get_id();
                               return Status::ok();
                             })
                    .isOk());
  engine->drain();
  ASSERT_EQ(order.size(), 3000u);
  for (int i = 0; i < 3000; ++i) ASSERT_EQ(order[i], i);
  EXPECT_NE(engineThread, std::this_thread::get_id());
  EXPECT_TRUE(device.synchronizeStream(stream).isOk());
  EXPECT_TRUE(device.destroyStream(stream).isOk());
}

// A caller that sees an operation done through its stream must find the engine idle too: it
// decides with idle() whether a hetcclCommAbort comes in the middle of an operation, and a
// "mid-operation" abort fails the peers' copies of an operation that succeeded (seen under
// mpirun, 9 runs in 72 on a loaded machine: the peers got a remote error and read results that
// were never written).
TEST(ProgressEngine, IsIdleOnceTheStreamRunsOn) {
  HostDevice device;
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  auto engine = makeEngine(device, ProgressEngine::Mode::Thread);
  int busyWhenReleased = 0;
  for (int i = 0; i < 500; ++i) {
    ASSERT_TRUE(engine->submit({stream}, [] { return Status::ok(); }).isOk());
    ASSERT_TRUE(device.synchronizeStream(stream).isOk());
    if (!engine->idle()) ++busyWhenReleased;
  }
  EXPECT_EQ(busyWhenReleased, 0) << "times of 500 the stream ran on while the engine still counted the operation";
  engine->drain();
  ASSERT_TRUE(device.destroyStream(stream).isOk());
}

TEST(ProgressEngine, AFullQueueMakesTheCallerWait) {
  HostDevice device;
  ClosedStream stream(device);
  auto engine = makeEngine(device, ProgressEngine::Mode::Thread, 2);
  auto noop = [] { return Status::ok(); };
  ASSERT_TRUE(engine->submit({stream.handle()}, noop).isOk());
  ASSERT_TRUE(engine->submit({stream.handle()}, noop).isOk());
  auto third = std::async(std::launch::async, [&] { return engine->submit({stream.handle()}, noop); });
  EXPECT_EQ(third.wait_for(std::chrono::milliseconds(50)), std::future_status::timeout)
      << "a third operation was queued past a depth of 2";
  stream.open();
  EXPECT_TRUE(third.get().isOk());
  engine->drain();
}

TEST(ProgressEngine, AFailurePoisonsLaterOperationsButReleasesTheirStreams) {
  HostDevice device;
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  auto engine = makeEngine(device, ProgressEngine::Mode::Thread);
  std::atomic<int> ran{0};
  ASSERT_TRUE(
      engine->submit({stream}, [&] { return ++ran, HETCCL_STATUS(Code::RemoteError, "peer vanished"); }).isOk());
  ASSERT_TRUE(engine->submit({stream}, [&] { return ++ran, Status::ok(); }).isOk());
  EXPECT_TRUE(device.synchronizeStream(stream).isOk());  // returns: the streams were released
  engine->drain();
  EXPECT_EQ(ran, 1) << "an operation ran after an earlier one failed";
  EXPECT_EQ(engine->asyncError().code(), Code::RemoteError);
  EXPECT_NE(engine->asyncError().message().find("peer vanished"), std::string::npos);
  EXPECT_TRUE(device.destroyStream(stream).isOk());
}

TEST(ProgressEngine, AbortSkipsQueuedOperationsAndReleasesStreams) {
  HostDevice device;
  ClosedStream input(device);  // keeps the first operation waiting for its inputs
  StreamHandle later = nullptr;
  ASSERT_TRUE(device.createStream(&later).isOk());
  auto engine = makeEngine(device, ProgressEngine::Mode::Thread);
  std::atomic<int> ran{0};
  ASSERT_TRUE(engine->submit({input.handle()}, [&] { return ++ran, Status::ok(); }).isOk());
  ASSERT_TRUE(engine->submit({later}, [&] { return ++ran, Status::ok(); }).isOk());
  pause();
  std::thread aborter([&] { engine->abort(); });  // from another thread, as a watchdog would
  aborter.join();
  engine.reset();  // joins the engine's thread: nothing left waits for the closed stream
  EXPECT_EQ(ran, 0);
  EXPECT_TRUE(device.synchronizeStream(later).isOk());
  EXPECT_TRUE(device.destroyStream(later).isOk());
}

// A thread stuck in a call that never returns (seen: Open MPI's MPI_Test after a peer was
// killed) never reaches its own timeout check: the watchdog gives it up, the stream is released
// with Code::Timeout, new work is refused, and once the thread does come back it stops.
TEST(ProgressEngine, AStuckThreadIsGivenUpAndItsStreamsReleased) {
  HostDevice device;
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  auto engine = makeEngine(device, ProgressEngine::Mode::Thread, 8, 0.2);
  StuckCall call;
  ASSERT_TRUE(engine->submit({stream}, call.work()).isOk());
  const auto start = std::chrono::steady_clock::now();
  EXPECT_TRUE(device.synchronizeStream(stream).isOk());
  const double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_GE(waited, 0.15);
  EXPECT_LT(waited, 2.0);
  EXPECT_TRUE(engine->stalled());
  EXPECT_EQ(engine->asyncError().code(), Code::Timeout);
  EXPECT_NE(engine->asyncError().message().find("has not come back"), std::string::npos)
      << engine->asyncError().message();
  EXPECT_TRUE(engine->idle());
  engine->drain();  // returns: everything counts as finished
  bool ran = false;
  EXPECT_EQ(engine->submit({stream}, [&] { return ran = true, Status::ok(); }).code(), Code::Timeout);
  EXPECT_TRUE(device.synchronizeStream(stream).isOk());
  call.release();
  while (!engine->stalledThreadReturned()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  engine.reset();
  EXPECT_FALSE(ran);
  EXPECT_TRUE(device.destroyStream(stream).isOk());
}

// hetcclCommAbort's path without a watchdog (HETCCL_TIMEOUT=0): a thread that does not leave
// its operation after the abort is reported, and can then be given up by hand.
TEST(ProgressEngine, AnAbortedThreadThatDoesNotComeBackCanBeGivenUp) {
  HostDevice device;
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  auto engine = makeEngine(device, ProgressEngine::Mode::Thread, 8);
  StuckCall call;
  ASSERT_TRUE(engine->submit({stream}, call.work()).isOk());
  while (!call.started()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  engine->abort();
  EXPECT_FALSE(engine->awaitAbortedThread(0.1));
  EXPECT_FALSE(engine->stalled());
  engine->giveUpThread(0.1);
  EXPECT_TRUE(engine->stalled());
  EXPECT_TRUE(device.synchronizeStream(stream).isOk()) << "the given-up operation's stream was not released";
  EXPECT_EQ(engine->asyncError().code(), Code::Aborted) << "the abort came first and stays the failure";
  EXPECT_FALSE(engine->awaitAbortedThread(0.05)) << "the thread is still inside the operation";
  call.release();
  EXPECT_TRUE(engine->awaitAbortedThread(5.0));
  while (!engine->stalledThreadReturned()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  engine.reset();
  EXPECT_TRUE(device.destroyStream(stream).isOk());
}

// A long operation whose loops keep beating, and an engine idle for long, are not stalls.
TEST(ProgressEngine, ABeatingOrIdleThreadIsNotGivenUp) {
  HostDevice device;
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  auto engine = makeEngine(device, ProgressEngine::Mode::Thread, 8, 0.1);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  ASSERT_TRUE(engine
                  ->submit({stream},
                           [] {
                             const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(500);
                             while (std::chrono::steady_clock::now() < end) {
                               beatThisThread();
                               std::this_thread::sleep_for(std::chrono::milliseconds(5));
                             }
                             return Status::ok();
                           })
                  .isOk());
  EXPECT_TRUE(device.synchronizeStream(stream).isOk());
  EXPECT_FALSE(engine->stalled());
  EXPECT_TRUE(engine->asyncError().isOk()) << engine->asyncError().message();
  engine.reset();
  EXPECT_TRUE(device.destroyStream(stream).isOk());
}

TEST(ProgressEngine, CallerModeRunsAtOnceAfterTheStreamDrains) {
  HostDevice device;
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  auto engine = makeEngine(device, ProgressEngine::Mode::Caller);
  int value = 0;
  static const int kSeven = 7;
  ASSERT_TRUE(device.copyAsync(&value, &kSeven, sizeof(int), stream).isOk());
  std::thread::id ranOn;
  const Status status = engine->submit({stream}, [&] {
    ranOn = std::this_thread::get_id();
    return value == 7 ? HETCCL_STATUS(Code::InternalError, "saw the input") : Status::ok();
  });
  EXPECT_EQ(status.code(), Code::InternalError) << "caller mode returns the operation's own result";
  EXPECT_EQ(ranOn, std::this_thread::get_id());
  EXPECT_TRUE(engine->idle());
  EXPECT_TRUE(device.destroyStream(stream).isOk());
}

TEST(HostStreamFlag, AStreamWaitsUntilTheFlagReachesItsValue) {
  HostDevice device;
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  std::unique_ptr<StreamFlag> flag;
  ASSERT_TRUE(device.createStreamFlag(&flag).isOk());
  EXPECT_EQ(flag->value(), 0u);
  ASSERT_TRUE(device.streamWaitFlag(stream, *flag, 2).isOk());
  bool idle = true;
  pause();
  ASSERT_TRUE(device.queryStream(stream, &idle).isOk());
  EXPECT_FALSE(idle);
  flag->raise(1);
  pause();
  ASSERT_TRUE(device.queryStream(stream, &idle).isOk());
  EXPECT_FALSE(idle) << "released at 1 while waiting for 2";
  flag->raise(3);
  EXPECT_TRUE(device.synchronizeStream(stream).isOk());
  EXPECT_EQ(flag->value(), 3u);
  flag.reset();  // a wait enqueued later on would still find its counter
  EXPECT_TRUE(device.destroyStream(stream).isOk());
}

// Waits for one flag queued back to back are waited for together, and the work behind them
// still runs only once the flag has reached the last of them; two streams waiting for different
// values of one flag are each released at their own (a raise wakes only waiters it satisfies).
TEST(HostStreamFlag, BackToBackWaitsHoldWorkUntilTheLastValue) {
  HostDevice device;
  StreamHandle stream = nullptr, other = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  ASSERT_TRUE(device.createStream(&other).isOk());
  std::unique_ptr<StreamFlag> flag, gate;
  ASSERT_TRUE(device.createStreamFlag(&flag).isOk());
  ASSERT_TRUE(device.createStreamFlag(&gate).isOk());
  // The gate keeps the worker from taking the first wait before the others are queued.
  ASSERT_TRUE(device.streamWaitFlag(stream, *gate, 1).isOk());
  for (uint64_t value = 1; value <= 3; ++value) ASSERT_TRUE(device.streamWaitFlag(stream, *flag, value).isOk());
  int cell = 0;
  static const int kOne = 1;
  ASSERT_TRUE(device.copyAsync(&cell, &kOne, sizeof cell, stream).isOk());
  ASSERT_TRUE(device.streamWaitFlag(other, *flag, 1).isOk());
  gate->raise(1);
  flag->raise(1);
  EXPECT_TRUE(device.synchronizeStream(other).isOk()) << "the other stream's wait for 1 was not released";
  flag->raise(2);
  pause();
  bool idle = true;
  ASSERT_TRUE(device.queryStream(stream, &idle).isOk());
  EXPECT_FALSE(idle);
  EXPECT_EQ(cell, 0) << "work behind a wait for 3 ran at 2";
  flag->raise(3);
  EXPECT_TRUE(device.synchronizeStream(stream).isOk());
  EXPECT_EQ(cell, 1);
  for (StreamHandle s : {stream, other}) EXPECT_TRUE(device.destroyStream(s).isOk());
}

TEST(HostInlineStream, RunsWorkBeforeEnqueueingReturns) {
  HostDevice device;
  ASSERT_TRUE(device.hasInlineStreams());
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createInlineStream(&stream).isOk());
  int a[4] = {1, 2, 3, 4}, b[4] = {10, 20, 30, 40}, out[4] = {};
  ASSERT_TRUE(device.reduceAsync(out, a, b, 4, ElementType::Int32, ReduceOp::Sum, stream).isOk());
  EXPECT_EQ(out[3], 44);
  std::unique_ptr<DeviceEvent> event;
  ASSERT_TRUE(device.recordEvent(stream, &event).isOk());
  EXPECT_TRUE(event->query());
  bool idle = false;
  ASSERT_TRUE(device.queryStream(stream, &idle).isOk());
  EXPECT_TRUE(idle);
  EXPECT_TRUE(device.destroyStream(stream).isOk());
}

}  // namespace
}  // namespace hetccl
