#include "device/host/host_device.h"

#include "device/argument_checks.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "device/host/host_reduce.h"
#include "device/host/host_stream_flag.h"

namespace hetccl {
namespace {

// At least cache-line alignment (GPU allocators give more): vector loops never split a line,
// and two buffers never share one. Buffers of a page or more are page-aligned, so that two of
// them sit at the same offset within a page: glibc's memcpy (rep movsb) on some AMD CPUs runs
// ~20x slower when the destination is a few bytes past the source modulo 4 KiB, which is
// exactly where adjacent heap blocks put them.
constexpr size_t kCacheLine = 64;
constexpr size_t kPage = 4096;

}  // namespace

HostDevice::HostDevice(bool strict, bool inlineStreams)
    : strict_(strict),
      streamMode_(inlineStreams ? HostStream::Mode::Inline : HostStream::Mode::Worker),
      defaultStream_(streamMode_) {}

HostDevice::~HostDevice() {
  // Finish all work before freeing the memory it may touch.
  streamGeneration_.fetch_add(1, std::memory_order_acq_rel);
  streams_.clear();
  defaultStream_.synchronize();
  for (void* ptr : deviceAllocations_) std::free(ptr);
  for (void* ptr : hostAllocations_) std::free(ptr);
}

std::string HostDevice::description() const {
  return std::string(strict_ ? "host-strict" : "host") + " (" + std::to_string(std::thread::hardware_concurrency()) +
         " hardware threads)";
}

Status HostDevice::allocateInto(AllocationSet& allocations, void** ptr, size_t bytes) {
  if (ptr == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "allocate: null output pointer");
  *ptr = nullptr;
  if (bytes == 0) return Status::ok();
  if (bytes > SIZE_MAX - kPage) return HETCCL_STATUS(Code::InvalidArgument, "allocate: %zu bytes is too large", bytes);
  const size_t alignment = bytes >= kPage ? kPage : kCacheLine;
  // aligned_alloc wants a size that is a multiple of the alignment.
  const size_t rounded = (bytes + alignment - 1) / alignment * alignment;
  void* memory = std::aligned_alloc(alignment, rounded);
  if (memory == nullptr) return HETCCL_STATUS(Code::SystemError, "allocate: out of memory for %zu bytes", bytes);
  std::lock_guard<std::mutex> lock(mutex_);
  allocations.insert(memory);
  *ptr = memory;
  return Status::ok();
}

Status HostDevice::releaseFrom(AllocationSet& allocations, void* ptr, const char* releaser, const char* allocator) {
  if (ptr == nullptr) return Status::ok();  // like free(nullptr) and cudaFree(nullptr)
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (allocations.erase(ptr) == 0)
      return HETCCL_STATUS(Code::InvalidArgument, "%s: %p was not allocated by %s", releaser, ptr, allocator);
  }
  std::free(ptr);
  return Status::ok();
}

Status HostDevice::allocate(void** ptr, size_t bytes) {
  if (!strict_ || ptr == nullptr || bytes == 0) return allocateInto(deviceAllocations_, ptr, bytes);
  return strictMemory_.allocate(ptr, bytes);
}

Status HostDevice::release(void* ptr) {
  if (strict_ && StrictMemory::isReserved(ptr)) return strictMemory_.release(ptr);
  return releaseFrom(deviceAllocations_, ptr, "release", "allocate");
}

Status HostDevice::reach(const void* ptr, size_t bytes, void** reachable) {
  if (!strict_) {
    *reachable = const_cast<void*>(ptr);
    return Status::ok();
  }
  return strictMemory_.translate(ptr, bytes, reachable);
}
Status HostDevice::allocateHost(void** ptr, size_t bytes) { return allocateInto(hostAllocations_, ptr, bytes); }
Status HostDevice::releaseHost(void* ptr) { return releaseFrom(hostAllocations_, ptr, "releaseHost", "allocateHost"); }

// Bumped whenever a stream or a device goes away: it empties every thread's lookup cache.
std::atomic<uint64_t> HostDevice::streamGeneration_{0};

Status HostDevice::findStream(StreamHandle handle, HostStream** stream) {
  if (handle == nullptr) {
    *stream = &defaultStream_;
    return Status::ok();
  }
  // A small cache per thread: a call names the same few streams over and over (the caller's,
  // hetccl's own, the inline one), and a lookup under the device's lock was a good part of a
  // small operation's cost.
  struct Lookup {
    const HostDevice* device = nullptr;
    StreamHandle handle = nullptr;
    HostStream* stream = nullptr;
    uint64_t generation = 0;
  };
  constexpr size_t kCached = 4;
  // One thread_local, not two: in a shared library each is reached through a call.
  struct Recent {
    Lookup entries[kCached];
    size_t nextSlot = 0;
  };
  thread_local Recent recent;
  const uint64_t generation = streamGeneration_.load(std::memory_order_acquire);
  for (const Lookup& entry : recent.entries)
    if (entry.device == this && entry.handle == handle && entry.generation == generation) {
      *stream = entry.stream;
      return Status::ok();
    }
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = streams_.find(handle);
  if (found == streams_.end()) return HETCCL_STATUS(Code::InvalidArgument, "unknown stream %p", handle);
  *stream = found->second.get();
  recent.entries[recent.nextSlot] = Lookup{this, handle, *stream, generation};
  recent.nextSlot = (recent.nextSlot + 1) % kCached;
  return Status::ok();
}

Status HostDevice::addStream(HostStream::Mode mode, StreamHandle* stream) {
  if (stream == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "createStream: null output pointer");
  auto created = std::make_unique<HostStream>(mode);
  *stream = created.get();
  std::lock_guard<std::mutex> lock(mutex_);
  streams_.emplace(*stream, std::move(created));
  return Status::ok();
}

Status HostDevice::createStream(StreamHandle* stream) { return addStream(streamMode_, stream); }
Status HostDevice::createInlineStream(StreamHandle* stream) { return addStream(HostStream::Mode::Inline, stream); }

Status HostDevice::destroyStream(StreamHandle stream) {
  if (stream == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "destroyStream: the default stream stays");
  std::unique_ptr<HostStream> doomed;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = streams_.find(stream);
    if (found == streams_.end())
      return HETCCL_STATUS(Code::InvalidArgument, "destroyStream: unknown stream %p", stream);
    doomed = std::move(found->second);
    streams_.erase(found);
    streamGeneration_.fetch_add(1, std::memory_order_acq_rel);
  }
  return Status::ok();  // `doomed` drains and joins here, outside the lock
}

Status HostDevice::synchronizeStream(StreamHandle handle) {
  HostStream* stream = nullptr;
  HETCCL_TRY(findStream(handle, &stream));
  stream->synchronize();
  return Status::ok();
}

Status HostDevice::recordEvent(StreamHandle handle, std::unique_ptr<DeviceEvent>* event) {
  if (event == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "recordEvent: null output pointer");
  HostStream* stream = nullptr;
  HETCCL_TRY(findStream(handle, &stream));
  // An event of this device handed back in is recorded again where it is (the executor records
  // one per step; an allocation each was a visible part of a small operation's cost).
  if (auto* reused = dynamic_cast<HostEvent*>(event->get())) {
    stream->recordEvent(reused);
    return Status::ok();
  }
  *event = stream->recordEvent();
  return Status::ok();
}

Status HostDevice::streamWaitEvent(StreamHandle handle, DeviceEvent& event) {
  auto* hostEvent = dynamic_cast<HostEvent*>(&event);
  if (hostEvent == nullptr)
    return HETCCL_STATUS(Code::InvalidArgument, "streamWaitEvent: not an event of a host device");
  HostStream* stream = nullptr;
  HETCCL_TRY(findStream(handle, &stream));
  stream->waitEvent(*hostEvent);
  return Status::ok();
}

Status HostDevice::queryStream(StreamHandle handle, bool* idle) {
  if (idle == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "queryStream: null output pointer");
  HostStream* stream = nullptr;
  HETCCL_TRY(findStream(handle, &stream));
  *idle = stream->idle();
  return Status::ok();
}

uint64_t HostDevice::lastEnqueuedMark(StreamHandle handle) {
  HostStream* stream = nullptr;
  if (!findStream(handle, &stream).isOk()) return 0;
  return stream->lastEnqueuedMark();
}

Status HostDevice::createStreamFlag(std::unique_ptr<StreamFlag>* flag) {
  if (flag == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "createStreamFlag: null output pointer");
  // An inline stream runs a flag wait on the thread that enqueues it: the caller would block in
  // its own call, waiting for a progress thread that waits for it.  No flags, so the engine
  // runs operations on the calling thread instead (core/progress_mode.cpp).
  if (streamMode_ == HostStream::Mode::Inline)
    return HETCCL_STATUS(Code::InvalidUsage,
                         "streams without a thread (HETCCL_HOST_STREAMS=inline) cannot wait for the host; use "
                         "HETCCL_PROGRESS=caller");
  *flag = std::make_unique<HostStreamFlag>();
  return Status::ok();
}

Status HostDevice::streamWaitFlag(StreamHandle handle, StreamFlag& flag, uint64_t value) {
  auto* hostFlag = dynamic_cast<HostStreamFlag*>(&flag);
  if (hostFlag == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "streamWaitFlag: not a flag of a host device");
  HostStream* stream = nullptr;
  HETCCL_TRY(findStream(handle, &stream));
  stream->waitFlag(hostFlag->counter(), value);
  return Status::ok();
}

Status HostDevice::copyAsync(void* dst, const void* src, size_t bytes, StreamHandle handle) {
  HostStream* stream = nullptr;
  HETCCL_TRY(findStream(handle, &stream));
  if (bytes == 0 || dst == src) return Status::ok();
  if (dst == nullptr || src == nullptr)
    return HETCCL_STATUS(Code::InvalidArgument, "copyAsync: null pointer for %zu bytes", bytes);
  void *to = nullptr, *from = nullptr;
  HETCCL_TRY(reach(dst, bytes, &to));
  HETCCL_TRY(reach(src, bytes, &from));
  // memmove: overlapping ranges (a shift within one buffer) stay well defined.
  stream->enqueue([to, from, bytes] { std::memmove(to, from, bytes); });
  return Status::ok();
}

Status HostDevice::reduceAsync(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                               StreamHandle handle) {
  HETCCL_TRY(checkReduceArguments(dst, a, b, count, type, op));
  HostStream* stream = nullptr;
  HETCCL_TRY(findStream(handle, &stream));
  if (count == 0) return Status::ok();
  const size_t bytes = count * elementSize(type);
  void *to = nullptr, *left = nullptr, *right = nullptr;
  HETCCL_TRY(reach(dst, bytes, &to));
  HETCCL_TRY(reach(a, bytes, &left));
  HETCCL_TRY(reach(b, bytes, &right));
  stream->enqueue([=] { hostReduce(to, left, right, count, type, op); });
  return Status::ok();
}

Status HostDevice::divideAsync(void* dst, size_t count, ElementType type, uint64_t divisor, StreamHandle handle) {
  HETCCL_TRY(checkDivideArguments(dst, count, type, divisor));
  HostStream* stream = nullptr;
  HETCCL_TRY(findStream(handle, &stream));
  if (count == 0 || divisor == 1) return Status::ok();
  void* to = nullptr;
  HETCCL_TRY(reach(dst, count * elementSize(type), &to));
  stream->enqueue([=] { hostDivide(to, count, type, divisor); });
  return Status::ok();
}

Status HostDevice::convertAsync(void* dst, ElementType to, const void* src, ElementType from, size_t count,
                                StreamHandle handle) {
  HETCCL_TRY(checkConvertArguments(dst, to, src, from, count));
  HostStream* stream = nullptr;
  HETCCL_TRY(findStream(handle, &stream));
  if (count == 0) return Status::ok();
  void *out = nullptr, *in = nullptr;
  HETCCL_TRY(reach(dst, count * elementSize(to), &out));
  HETCCL_TRY(reach(src, count * elementSize(from), &in));
  stream->enqueue([=] { hostConvert(out, to, in, from, count); });
  return Status::ok();
}

std::unique_ptr<Device> makeHostDevice(bool strict, bool inlineStreams) {
  return std::make_unique<HostDevice>(strict, inlineStreams);
}

}  // namespace hetccl
