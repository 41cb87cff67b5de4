// The host backend: stream ordering and events, the Device interface's results against the
// reduce_ops.h functors (tested on their own in reduce_ops_test.cpp), and argument checking.
#include "device/host/host_device.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <mutex>
#include <random>
#include <thread>
#include <vector>

#include "base/element.h"
#include "device/host/host_reduce.h"
#include "device/host/host_stream.h"
#include "device/reduce_ops.h"

namespace hetccl {
namespace {

// Holds a stream's worker inside a task until the test opens it.
class Gate {
 public:
  void open() {
    std::lock_guard<std::mutex> lock(mutex_);
    open_ = true;
    opened_.notify_all();
  }
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    opened_.wait(lock, [&] { return open_; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable opened_;
  bool open_ = false;
};

void pause() { std::this_thread::sleep_for(std::chrono::milliseconds(20)); }

// ---- HostStream ----------------------------------------------------------------------------
// HETCCL_HOST_STREAMS=inline: every stream, the default one too, runs a task before enqueueing
// returns, on the enqueuing thread (no worker threads: what a simulator needs).
TEST(HostDevice, InlineStreamsRunTasksOnTheEnqueuingThread) {
  HostDevice device(false, /*inlineStreams=*/true);
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device.createStream(&stream).isOk());
  for (StreamHandle target : {stream, StreamHandle{nullptr}}) {
    int cell = 0;
    static const int kSeven = 7;
    ASSERT_TRUE(device.copyAsync(&cell, &kSeven, sizeof cell, target).isOk());
    EXPECT_EQ(cell, 7) << "the copy had not run when copyAsync returned";
    EXPECT_EQ(device.lastEnqueuedMark(target), 0u) << "an inline stream has no queue to mark";
    std::unique_ptr<DeviceEvent> event;
    ASSERT_TRUE(device.recordEvent(target, &event).isOk());
    EXPECT_TRUE(event->query());
  }
  EXPECT_TRUE(device.destroyStream(stream).isOk());
  // A flag wait would block the enqueuing thread itself: no flags (a progress thread's
  // operations could never be waited for), so communicators run operations on the caller.
  std::unique_ptr<StreamFlag> flag;
  const Status refused = device.createStreamFlag(&flag);
  EXPECT_FALSE(refused.isOk());
  EXPECT_NE(refused.message().find("HETCCL_PROGRESS=caller"), std::string::npos) << refused.message();
}

// An event handed back to recordEvent is recorded again in place (the executor's per-step
// event, without an allocation each time), and then answers for its new stream and position.
TEST(HostDevice, RecordEventReusesAnEventItIsHandedBack) {
  HostDevice device;
  StreamHandle busy = nullptr, other = nullptr;
  ASSERT_TRUE(device.createStream(&busy).isOk());
  ASSERT_TRUE(device.createStream(&other).isOk());
  std::unique_ptr<DeviceEvent> event;
  ASSERT_TRUE(device.recordEvent(other, &event).isOk());
  const DeviceEvent* first = event.get();
  EXPECT_TRUE(event->query());
  std::unique_ptr<StreamFlag> gate;  // holds `busy` until raised
  ASSERT_TRUE(device.createStreamFlag(&gate).isOk());
  ASSERT_TRUE(device.streamWaitFlag(busy, *gate, 1).isOk());
  int cell = 0;
  static const int kNine = 9;
  ASSERT_TRUE(device.copyAsync(&cell, &kNine, sizeof cell, busy).isOk());
  ASSERT_TRUE(device.recordEvent(busy, &event).isOk());
  EXPECT_EQ(event.get(), first) << "a host event handed back was replaced, not reused";
  pause();
  EXPECT_FALSE(event->query()) << "the reused event still answered for its old stream";
  gate->raise(1);
  EXPECT_TRUE(event->synchronize().isOk());
  EXPECT_EQ(cell, 9);
  ASSERT_TRUE(device.recordEvent(other, &event).isOk());  // back to an idle stream: complete
  EXPECT_TRUE(event->query());
  EXPECT_TRUE(device.destroyStream(busy).isOk());
  EXPECT_TRUE(device.destroyStream(other).isOk());
}

TEST(HostStream, RunsTasksInFifoOrder) {
  HostStream stream;
  std::vector<int> order;  // touched only by the worker until synchronize() returns
  for (int i = 0; i < 2000; ++i) stream.enqueue([&order, i] { order.push_back(i); });
  stream.synchronize();
  ASSERT_EQ(order.size(), 2000u);
  for (int i = 0; i < 2000; ++i) ASSERT_EQ(order[i], i);
}

TEST(HostStream, EventCompletesOnceEverythingBeforeItHasRun) {
  HostStream stream;
  auto atStart = stream.recordEvent();
  EXPECT_TRUE(atStart->query());  // nothing enqueued before it
  Gate gate;
  std::atomic<bool> ran{false};
  stream.enqueue([&] {
    gate.wait();
    ran = true;
  });
  auto afterTask = stream.recordEvent();
  pause();
  EXPECT_FALSE(afterTask->query());
  EXPECT_FALSE(ran);
  gate.open();
  EXPECT_TRUE(afterTask->synchronize().isOk());
  EXPECT_TRUE(afterTask->query());
  EXPECT_TRUE(ran);
}

TEST(HostStream, EventOutlivesItsStream) {
  std::unique_ptr<HostEvent> event;
  {
    HostStream stream;
    stream.enqueue([] {});
    event = stream.recordEvent();
  }  // the destructor drains the stream
  EXPECT_TRUE(event->query());
  EXPECT_TRUE(event->synchronize().isOk());
}

TEST(HostStream, WaitEventHoldsBackLaterTasksOfAnotherStream) {
  HostStream producer, consumer;
  Gate gate;
  std::atomic<int> produced{0};
  int seenByConsumer = -1;
  producer.enqueue([&] {
    gate.wait();
    produced = 42;
  });
  {
    auto event = producer.recordEvent();
    consumer.waitEvent(*event);
  }  // the wait must not depend on the caller keeping its event
  consumer.enqueue([&] { seenByConsumer = produced; });
  auto consumed = consumer.recordEvent();
  pause();
  EXPECT_FALSE(consumed->query());
  gate.open();
  consumer.synchronize();
  EXPECT_EQ(seenByConsumer, 42);
}

TEST(HostStream, DestructorRunsEverythingEnqueued) {
  std::atomic<int> count{0};
  {
    HostStream stream;
    for (int i = 0; i < 500; ++i) stream.enqueue([&] { ++count; });
  }
  EXPECT_EQ(count, 500);
}

// ---- HostDevice: memory, streams, events ---------------------------------------------------
TEST(HostDevice, DescribesItself) {
  auto device = makeHostDevice();
  EXPECT_EQ(device->kind(), DeviceKind::Host);
  EXPECT_STREQ(deviceKindName(device->kind()), "host");
  EXPECT_FALSE(device->description().empty());
}

TEST(HostDevice, AllocationsAreAlignedAndTracked) {
  auto device = makeHostDevice();
  for (size_t bytes : {size_t(1), size_t(63), size_t(65), size_t(4096), size_t(1) << 20}) {
    void* ptr = nullptr;
    ASSERT_TRUE(device->allocate(&ptr, bytes).isOk());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(ptr) % (bytes >= 4096 ? 4096 : 64), 0u);
    std::memset(ptr, 0xab, bytes);  // the whole size is usable
    void* host = nullptr;
    ASSERT_TRUE(device->allocateHost(&host, bytes).isOk());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(host) % 64, 0u);
    // Device and host memory are not interchangeable, as on a GPU.
    EXPECT_EQ(device->release(host).code(), Code::InvalidArgument);
    EXPECT_EQ(device->releaseHost(ptr).code(), Code::InvalidArgument);
    EXPECT_TRUE(device->release(ptr).isOk());
    EXPECT_TRUE(device->releaseHost(host).isOk());
    EXPECT_EQ(device->release(ptr).code(), Code::InvalidArgument);  // double release
  }
  void* empty = reinterpret_cast<void*>(0x1);
  EXPECT_TRUE(device->allocate(&empty, 0).isOk());
  EXPECT_EQ(empty, nullptr);
  EXPECT_TRUE(device->release(nullptr).isOk());
  EXPECT_TRUE(device->releaseHost(nullptr).isOk());
  EXPECT_EQ(device->allocate(nullptr, 16).code(), Code::InvalidArgument);
  int local = 0;
  EXPECT_EQ(device->release(&local).code(), Code::InvalidArgument);
}

TEST(HostDevice, StreamHandlesAreChecked) {
  auto device = makeHostDevice();
  StreamHandle stream = nullptr;
  ASSERT_TRUE(device->createStream(&stream).isOk());
  EXPECT_NE(stream, nullptr);
  EXPECT_TRUE(device->synchronizeStream(stream).isOk());
  EXPECT_TRUE(device->synchronizeStream(nullptr).isOk());  // the default stream
  int notAStream = 0;
  EXPECT_EQ(device->synchronizeStream(&notAStream).code(), Code::InvalidArgument);
  EXPECT_EQ(device->destroyStream(nullptr).code(), Code::InvalidArgument);
  EXPECT_EQ(device->createStream(nullptr).code(), Code::InvalidArgument);
  EXPECT_TRUE(device->destroyStream(stream).isOk());
  EXPECT_EQ(device->destroyStream(stream).code(), Code::InvalidArgument);
  EXPECT_EQ(device->recordEvent(nullptr, nullptr).code(), Code::InvalidArgument);
  int value = 0;
  EXPECT_EQ(device->copyAsync(&value, &value + 1, 0, &notAStream).code(), Code::InvalidArgument);
}

TEST(HostDevice, StreamWaitEventOrdersWorkAcrossStreams) {
  auto device = makeHostDevice();
  StreamHandle producer = nullptr, consumer = nullptr;
  ASSERT_TRUE(device->createStream(&producer).isOk());
  ASSERT_TRUE(device->createStream(&consumer).isOk());
  const size_t count = 1 << 20;
  std::vector<int32_t> source(count, 3), staged(count, 0), result(count, 0);
  // Producer: a large copy; consumer: after waiting, staged + staged.
  ASSERT_TRUE(device->copyAsync(staged.data(), source.data(), count * 4, producer).isOk());
  std::unique_ptr<DeviceEvent> copied;
  ASSERT_TRUE(device->recordEvent(producer, &copied).isOk());
  ASSERT_TRUE(device->streamWaitEvent(consumer, *copied).isOk());
  ASSERT_TRUE(
      device
          ->reduceAsync(result.data(), staged.data(), staged.data(), count, ElementType::Int32, ReduceOp::Sum, consumer)
          .isOk());
  ASSERT_TRUE(device->synchronizeStream(consumer).isOk());
  EXPECT_TRUE(copied->query());
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(result[i], 6) << i;
  EXPECT_TRUE(device->destroyStream(producer).isOk());
  EXPECT_TRUE(device->destroyStream(consumer).isOk());
}

TEST(HostDevice, RejectsEventsOfOtherBackends) {
  struct ForeignEvent : DeviceEvent {
    bool query() override { return true; }
    Status synchronize() override { return Status::ok(); }
  } foreign;
  auto device = makeHostDevice();
  EXPECT_EQ(device->streamWaitEvent(nullptr, foreign).code(), Code::InvalidArgument);
}

TEST(HostDevice, OperationsOnOneStreamRunInOrder) {
  auto device = makeHostDevice();
  std::vector<int64_t> source(1000), work(1000, 0);
  for (size_t i = 0; i < source.size(); ++i) source[i] = int64_t(i) - 500;
  // copy, double it, halve it: only in this order is the result the source again.
  ASSERT_TRUE(device->copyAsync(work.data(), source.data(), 8000, nullptr).isOk());
  ASSERT_TRUE(
      device->reduceAsync(work.data(), work.data(), work.data(), 1000, ElementType::Int64, ReduceOp::Avg, nullptr)
          .isOk());
  ASSERT_TRUE(device->divideAsync(work.data(), 1000, ElementType::Int64, 2, nullptr).isOk());
  ASSERT_TRUE(device->synchronizeStream(nullptr).isOk());
  EXPECT_EQ(work, source);
}

TEST(HostDevice, CopyHandlesOverlapAndSelfCopy) {
  auto device = makeHostDevice();
  std::vector<uint8_t> bytes(100);
  for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(i);
  ASSERT_TRUE(device->copyAsync(bytes.data() + 10, bytes.data(), 50, nullptr).isOk());
  ASSERT_TRUE(device->copyAsync(bytes.data(), bytes.data(), 100, nullptr).isOk());
  ASSERT_TRUE(device->synchronizeStream(nullptr).isOk());
  for (size_t i = 0; i < 50; ++i) ASSERT_EQ(bytes[10 + i], i);
}

// ---- HostDevice: reductions ----------------------------------------------------------------
constexpr ElementType kAllTypes[] = {
    ElementType::Int8,   ElementType::Uint8,   ElementType::Int32,   ElementType::Uint32,  ElementType::Int64,
    ElementType::Uint64, ElementType::Float16, ElementType::Float32, ElementType::Float64, ElementType::Bfloat16};
constexpr ReduceOp kAllOps[] = {ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min, ReduceOp::Avg};

// NaN payloads may legitimately differ between a vectorized and a scalar evaluation (which
// operand's NaN survives), so NaNs compare equal to each other.
bool isNaNElement(ElementType type, const uint8_t* element) {
  uint64_t bits = 0;
  std::memcpy(&bits, element, elementSize(type));
  switch (type) {
    case ElementType::Float16: return (bits & 0x7fff) > 0x7c00;
    case ElementType::Bfloat16: return (bits & 0x7fff) > 0x7f80;
    case ElementType::Float32: return (bits & 0x7fffffffu) > 0x7f800000u;
    case ElementType::Float64: return (bits & ~(uint64_t(1) << 63)) > 0x7ff0000000000000u;
    default: return false;
  }
}
void expectSameElements(ElementType type, const std::vector<uint8_t>& got, const std::vector<uint8_t>& want,
                        const char* what) {
  const size_t size = elementSize(type);
  for (size_t offset = 0; offset < got.size(); offset += size) {
    if (isNaNElement(type, &want[offset]) && isNaNElement(type, &got[offset])) continue;
    ASSERT_EQ(std::memcmp(&got[offset], &want[offset], size), 0)
        << what << " " << elementTypeName(type) << " element " << offset / size;
  }
}

template <class T, class Op>
void referenceLoop(void* dst, const void* a, const void* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T x, y;
    std::memcpy(&x, static_cast<const T*>(a) + i, sizeof(T));
    std::memcpy(&y, static_cast<const T*>(b) + i, sizeof(T));
    const T z = Op()(x, y);
    std::memcpy(static_cast<T*>(dst) + i, &z, sizeof(T));
  }
}
template <class T>
void referenceReduce(void* dst, const void* a, const void* b, size_t n, ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum:
    case ReduceOp::Avg: return referenceLoop<T, SumOp<T>>(dst, a, b, n);
    case ReduceOp::Prod: return referenceLoop<T, ProdOp<T>>(dst, a, b, n);
    case ReduceOp::Max: return referenceLoop<T, MaxOp<T>>(dst, a, b, n);
    case ReduceOp::Min: return referenceLoop<T, MinOp<T>>(dst, a, b, n);
  }
}
void referenceReduce(void* dst, const void* a, const void* b, size_t n, ElementType type, ReduceOp op) {
  switch (type) {
    case ElementType::Int8: return referenceReduce<int8_t>(dst, a, b, n, op);
    case ElementType::Uint8: return referenceReduce<uint8_t>(dst, a, b, n, op);
    case ElementType::Int32: return referenceReduce<int32_t>(dst, a, b, n, op);
    case ElementType::Uint32: return referenceReduce<uint32_t>(dst, a, b, n, op);
    case ElementType::Int64: return referenceReduce<int64_t>(dst, a, b, n, op);
    case ElementType::Uint64: return referenceReduce<uint64_t>(dst, a, b, n, op);
    case ElementType::Float16: return referenceReduce<Float16>(dst, a, b, n, op);
    case ElementType::Float32: return referenceReduce<float>(dst, a, b, n, op);
    case ElementType::Float64: return referenceReduce<double>(dst, a, b, n, op);
    case ElementType::Bfloat16: return referenceReduce<Bfloat16>(dst, a, b, n, op);
  }
}

std::vector<uint8_t> randomBytes(size_t n, std::mt19937& random) {
  std::vector<uint8_t> bytes(n);
  for (auto& byte : bytes) byte = uint8_t(random());
  return bytes;
}

// Every type and op, with dst distinct, dst == a, dst == b and dst == a == b. An odd count
// leaves a remainder after any vector width.
TEST(HostDevice, ReduceMatchesFunctorsForEveryTypeOpAndAliasing) {
  auto device = makeHostDevice();
  std::mt19937 random(2024);
  const size_t count = 1037;
  for (ElementType type : kAllTypes) {
    for (ReduceOp op : kAllOps) {
      const size_t bytes = count * elementSize(type);
      const std::vector<uint8_t> a = randomBytes(bytes, random), b = randomBytes(bytes, random);
      std::vector<uint8_t> want(bytes), wantSelf(bytes);
      referenceReduce(want.data(), a.data(), b.data(), count, type, op);
      referenceReduce(wantSelf.data(), a.data(), a.data(), count, type, op);

      std::vector<uint8_t> distinct(bytes), intoA = a, intoB = b, self = a;
      ASSERT_TRUE(device->reduceAsync(distinct.data(), a.data(), b.data(), count, type, op, nullptr).isOk());
      ASSERT_TRUE(device->reduceAsync(intoA.data(), intoA.data(), b.data(), count, type, op, nullptr).isOk());
      ASSERT_TRUE(device->reduceAsync(intoB.data(), a.data(), intoB.data(), count, type, op, nullptr).isOk());
      ASSERT_TRUE(device->reduceAsync(self.data(), self.data(), self.data(), count, type, op, nullptr).isOk());
      ASSERT_TRUE(device->synchronizeStream(nullptr).isOk());
      expectSameElements(type, distinct, want, "distinct");
      expectSameElements(type, intoA, want, "dst == a");
      expectSameElements(type, intoB, want, "dst == b");
      expectSameElements(type, self, wantSelf, "dst == a == b");
    }
  }
}

template <class T>
void referenceDivide(std::vector<uint8_t>& bytes, uint64_t divisor) {
  for (size_t offset = 0; offset < bytes.size(); offset += sizeof(T)) {
    T x;
    std::memcpy(&x, &bytes[offset], sizeof(T));
    x = DivideOp<T>{divisor}(x);
    std::memcpy(&bytes[offset], &x, sizeof(T));
  }
}
void referenceDivide(std::vector<uint8_t>& bytes, ElementType type, uint64_t divisor) {
  switch (type) {
    case ElementType::Int8: return referenceDivide<int8_t>(bytes, divisor);
    case ElementType::Uint8: return referenceDivide<uint8_t>(bytes, divisor);
    case ElementType::Int32: return referenceDivide<int32_t>(bytes, divisor);
    case ElementType::Uint32: return referenceDivide<uint32_t>(bytes, divisor);
    case ElementType::Int64: return referenceDivide<int64_t>(bytes, divisor);
    case ElementType::Uint64: return referenceDivide<uint64_t>(bytes, divisor);
    case ElementType::Float16: return referenceDivide<Float16>(bytes, divisor);
    case ElementType::Float32: return referenceDivide<float>(bytes, divisor);
    case ElementType::Float64: return referenceDivide<double>(bytes, divisor);
    case ElementType::Bfloat16: return referenceDivide<Bfloat16>(bytes, divisor);
  }
}

TEST(HostDevice, DivideMatchesFunctorForEveryType) {
  auto device = makeHostDevice();
  std::mt19937 random(7);
  for (ElementType type : kAllTypes) {
    for (uint64_t divisor : {1ull, 3ull, 8ull, 1000ull}) {
      std::vector<uint8_t> data = randomBytes(513 * elementSize(type), random), want = data;
      referenceDivide(want, type, divisor);
      ASSERT_TRUE(device->divideAsync(data.data(), 513, type, divisor, nullptr).isOk());
      ASSERT_TRUE(device->synchronizeStream(nullptr).isOk());
      expectSameElements(type, data, want, "divide");
    }
  }
  std::vector<int32_t> negatives = {-7, -8, 7, -1};
  hostDivide(negatives.data(), negatives.size(), ElementType::Int32, 2);
  EXPECT_EQ(negatives, (std::vector<int32_t>{-3, -4, 3, 0}));
}

TEST(HostDevice, InvalidArgumentsAreRejectedAndDoNothing) {
  auto device = makeHostDevice();
  std::vector<float> a(16, 1.0f), b(16, 2.0f), dst(16, 0.0f);
  auto invalid = [](const Status& status) { return status.code() == Code::InvalidArgument; };
  const auto f32 = ElementType::Float32;
  const auto sum = ReduceOp::Sum;
  EXPECT_TRUE(invalid(device->reduceAsync(nullptr, a.data(), b.data(), 16, f32, sum, nullptr)));
  EXPECT_TRUE(invalid(device->reduceAsync(dst.data(), nullptr, b.data(), 16, f32, sum, nullptr)));
  EXPECT_TRUE(invalid(device->reduceAsync(dst.data(), a.data(), nullptr, 16, f32, sum, nullptr)));
  EXPECT_TRUE(invalid(
      device->reduceAsync(dst.data(), a.data(), b.data(), 16, static_cast<ElementType>(42), ReduceOp::Sum, nullptr)));
  EXPECT_TRUE(
      invalid(device->reduceAsync(dst.data(), a.data(), b.data(), 16, f32, static_cast<ReduceOp>(-1), nullptr)));
  EXPECT_TRUE(invalid(
      device->reduceAsync(a.data() + 1, a.data(), b.data(), 8, f32, ReduceOp::Sum, nullptr)));  // partial overlap
  EXPECT_TRUE(invalid(device->reduceAsync(dst.data(), a.data(), b.data(), SIZE_MAX / 2, f32, ReduceOp::Sum,
                                          nullptr)));  // byte count overflows
  EXPECT_TRUE(invalid(device->divideAsync(dst.data(), 16, f32, 0, nullptr)));
  EXPECT_TRUE(invalid(device->divideAsync(nullptr, 16, f32, 2, nullptr)));
  EXPECT_TRUE(invalid(device->divideAsync(dst.data(), 16, static_cast<ElementType>(10), 2, nullptr)));
  EXPECT_TRUE(invalid(device->copyAsync(nullptr, a.data(), 4, nullptr)));
  EXPECT_TRUE(invalid(device->copyAsync(dst.data(), nullptr, 4, nullptr)));
  // Nothing to do is not an error, whatever the pointers.
  EXPECT_TRUE(device->reduceAsync(nullptr, nullptr, nullptr, 0, f32, sum, nullptr).isOk());
  EXPECT_TRUE(device->copyAsync(nullptr, nullptr, 0, nullptr).isOk());
  EXPECT_TRUE(device->divideAsync(nullptr, 0, f32, 3, nullptr).isOk());
  ASSERT_TRUE(device->synchronizeStream(nullptr).isOk());
  EXPECT_EQ(dst, std::vector<float>(16, 0.0f));
  EXPECT_EQ(a, std::vector<float>(16, 1.0f));
  const Status status = device->divideAsync(dst.data(), 16, f32, 0, nullptr);
  EXPECT_NE(status.message().find("divisor"), std::string::npos) << status.message();
}

TEST(HostDevice, DestroyingTheDeviceFinishesPendingWork) {
  std::vector<int32_t> a(1 << 20, 1), result(1 << 20, 0);
  {
    auto device = makeHostDevice();
    StreamHandle stream = nullptr;
    ASSERT_TRUE(device->createStream(&stream).isOk());
    void* leaked = nullptr;  // freed by the device's destructor
    ASSERT_TRUE(device->allocate(&leaked, 1024).isOk());
    ASSERT_TRUE(
        device->reduceAsync(result.data(), a.data(), a.data(), a.size(), ElementType::Int32, ReduceOp::Sum, stream)
            .isOk());
  }
  EXPECT_EQ(result.back(), 2);
}

TEST(ElementNames, MatchNcclTests) {
  const char* typeNames[] = {"int8",   "uint8", "int32", "uint32", "int64",
                             "uint64", "half",  "float", "double", "bfloat16"};
  for (int t = 0; t < kElementTypeCount; ++t) EXPECT_STREQ(elementTypeName(static_cast<ElementType>(t)), typeNames[t]);
  const char* opNames[] = {"sum", "prod", "max", "min", "avg"};
  for (int op = 0; op < kReduceOpCount; ++op) EXPECT_STREQ(reduceOpName(static_cast<ReduceOp>(op)), opNames[op]);
  EXPECT_STREQ(deviceKindName(DeviceKind::Cuda), "cuda");
  EXPECT_STREQ(deviceKindName(DeviceKind::Hip), "hip");
  EXPECT_STREQ(elementTypeName(static_cast<ElementType>(99)), "unknown");
}

}  // namespace
}  // namespace hetccl
