// A GPU behind the Device interface, written once over a vendor runtime `Api` (CudaApi in
// cuda/cuda_api.h, HipApi in hip/hip_api.h: the same calls under neutral names), so the CUDA and
// HIP backends share their argument checks, error reporting and event logic, and differ only
// in the runtime they call. Compiled by the host compiler inside each backend module.
//
// Every runtime error becomes Code::DeviceError carrying the runtime's own error string.
// Streams are the runtime's (a user's cudaStream_t/hipStream_t is accepted as is: collectives
// are enqueued on the caller's stream), so unlike the host backend nothing is tracked here;
// the runtime rejects what it does not know.
#pragma once

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "base/status.h"
#include "device/argument_checks.h"
#include "device/device.h"
#include "device/gpu/device_index.h"

namespace hetccl {

// "<what>: CUDA error 2 (out of memory)" at the call site, as Code::DeviceError.
inline Status gpuFailureAt(const char* file, int line, const char* runtime, int error, const char* errorText,
                           const char* what, ...) __attribute__((format(printf, 6, 7)));
inline Status gpuFailureAt(const char* file, int line, const char* runtime, int error, const char* errorText,
                           const char* what, ...) {
  char text[512];
  va_list args;
  va_start(args, what);
  std::vsnprintf(text, sizeof text, what, args);
  va_end(args);
  return Status(Code::DeviceError, formatAt(file, line, "%s: %s error %d (%s)", text, runtime, error, errorText));
}

// Returns that DeviceError from the enclosing function when a runtime call fails. The
// arguments after the call are printf-style and describe it. `Api` must be in scope.
#define HETCCL_GPU_TRY(call, ...)                                                                                      \
  do {                                                                                                                 \
    const auto hetccl_gpu_error_ = (call);                                                                             \
    if (hetccl_gpu_error_ != Api::kSuccess)                                                                            \
      return gpuFailureAt(__FILE__, __LINE__, Api::kName, int(hetccl_gpu_error_), Api::errorString(hetccl_gpu_error_), \
                          __VA_ARGS__);                                                                                \
  } while (0)

// Makes `device` current for the calling thread: the runtime's current device is per thread,
// and hetccl is called from whichever thread the application uses. It stays current afterwards
// (one process drives one device): restoring the thread's previous device would initialize
// device 0 on every thread that never chose one, the classic "every rank has a context on
// GPU 0" waste.
template <class Api>
Status makeCurrent(int device) {
  int current = -1;
  if (Api::getDevice(&current) == Api::kSuccess && current == device) return Status::ok();
  HETCCL_GPU_TRY(Api::setDevice(device), "selecting device %d", device);
  return Status::ok();
}

// The executor records an event at the end of nearly every pipeline step: events are handed
// back here when released and recorded again, rather than created and destroyed each time
// (each a driver call).  Re-recording a released event is safe: a wait already enqueued on it
// captured the work it stood for when it was enqueued.
template <class Api>
class EventPool {
 public:
  explicit EventPool(int device) : device_(device) {}
  ~EventPool() {
    if (!makeCurrent<Api>(device_).isOk()) return;
    for (typename Api::Event event : free_) (void)Api::eventDestroy(event);
  }
  EventPool(const EventPool&) = delete;
  EventPool& operator=(const EventPool&) = delete;

  Status take(typename Api::Event* event) {
    {
      std::lock_guard<std::mutex> guard(lock_);
      if (!free_.empty()) {
        *event = free_.back();
        free_.pop_back();
        return Status::ok();
      }
    }
    HETCCL_GPU_TRY(Api::eventCreate(event), "creating an event");
    return Status::ok();
  }
  void give(typename Api::Event event) {
    std::lock_guard<std::mutex> guard(lock_);
    free_.push_back(event);
  }

 private:
  int device_;
  std::mutex lock_;
  std::vector<typename Api::Event> free_;
};

template <class Api>
class GpuEvent : public DeviceEvent {
 public:
  GpuEvent(std::shared_ptr<EventPool<Api>> pool, typename Api::Event event) : pool_(std::move(pool)), event_(event) {}
  ~GpuEvent() override { pool_->give(event_); }
  GpuEvent(const GpuEvent&) = delete;
  GpuEvent& operator=(const GpuEvent&) = delete;

  // Any answer but "not ready" counts as complete: a failed event will never become ready, so
  // pollers move on to synchronize(), which reports the error.
  bool query() override { return Api::eventQuery(event_) != Api::kNotReady; }
  Status synchronize() override {
    HETCCL_GPU_TRY(Api::eventSynchronize(event_), "waiting for an event");
    return Status::ok();
  }
  typename Api::Event handle() const { return event_; }

 private:
  std::shared_ptr<EventPool<Api>> pool_;  // outlives the device if the event does
  typename Api::Event event_;
};

// The memory of stream flags: 8 bytes of pinned host memory each, mapped into the device's
// address space (the host writes the counter, a waiting stream polls the mapped address).
// Handed out again when a flag is destroyed, never freed, even with the pool: a user's stream
// may reach a wait enqueued on a flag after the flag's owner is gone, and it must then read a
// counter that has only grown since (so the wait passes), not memory given to something else.
template <class Api>
class FlagPool {
 public:
  struct Slot {
    uint64_t* host = nullptr;
    void* mapped = nullptr;  // the device's address of *host
  };

  FlagPool() = default;
  FlagPool(const FlagPool&) = delete;
  FlagPool& operator=(const FlagPool&) = delete;

  // A recycled slot keeps its counter; a new one starts at 0. The device must be current.
  Status take(Slot* slot) {
    {
      std::lock_guard<std::mutex> guard(lock_);
      if (!free_.empty()) {
        *slot = free_.back();
        free_.pop_back();
        return Status::ok();
      }
    }
    void* host = nullptr;
    HETCCL_GPU_TRY(Api::hostAllocMapped(&host, sizeof(uint64_t)), "allocating a stream flag in mapped host memory");
    void* mapped = nullptr;
    const auto error = Api::hostDevicePointer(&mapped, host);
    if (error != Api::kSuccess) (void)Api::freeHost(host);  // no stream has seen it yet
    HETCCL_GPU_TRY(error, "mapping stream flag %p into the device", host);
    slot->host = static_cast<uint64_t*>(host);
    slot->mapped = mapped;
    __atomic_store_n(slot->host, uint64_t(0), __ATOMIC_RELEASE);
    return Status::ok();
  }
  void give(Slot slot) {
    std::lock_guard<std::mutex> guard(lock_);
    free_.push_back(slot);
  }

 private:
  std::mutex lock_;
  std::vector<Slot> free_;
};

// raise() is a plain atomic store to pinned memory: no runtime call, so it never blocks on the
// device, and any thread may make it.
template <class Api>
class GpuStreamFlag : public StreamFlag {
 public:
  GpuStreamFlag(std::shared_ptr<FlagPool<Api>> pool, typename FlagPool<Api>::Slot slot)
      : pool_(std::move(pool)), slot_(slot) {}
  ~GpuStreamFlag() override { pool_->give(slot_); }
  GpuStreamFlag(const GpuStreamFlag&) = delete;
  GpuStreamFlag& operator=(const GpuStreamFlag&) = delete;

  // Release: whatever the raising thread wrote before (results in host memory, say) is visible
  // to anyone who sees the new value.
  void raise(uint64_t value) override { __atomic_store_n(slot_.host, value, __ATOMIC_RELEASE); }
  uint64_t value() const override { return __atomic_load_n(slot_.host, __ATOMIC_ACQUIRE); }
  void* mapped() const { return slot_.mapped; }

 private:
  std::shared_ptr<FlagPool<Api>> pool_;  // outlives the device if the flag does
  typename FlagPool<Api>::Slot slot_;
};

template <class Api>
class GpuDevice : public Device {
 public:
  // Chooses and opens this process's device; a clear error when there is none (no driver,
  // no device, a bad HETCCL_DEVICE_ID).
  static Status create(std::unique_ptr<Device>* device) {
    int count = 0;
    const auto error = Api::deviceCount(&count);
    if (error != Api::kSuccess)
      return HETCCL_STATUS(Code::DeviceError, "no %s device: %s returned error %d (%s)", Api::kName, Api::kCountCall,
                           int(error), Api::errorString(error));
    if (count <= 0) return HETCCL_STATUS(Code::DeviceError, "no %s device: %s found none", Api::kName, Api::kCountCall);
    DeviceChoice choice;
    HETCCL_TRY(chooseDeviceIndex(count, &choice));
    HETCCL_TRY(makeCurrent<Api>(choice.index));
    int multiprocessors = 0;
    HETCCL_GPU_TRY(Api::multiprocessorCount(choice.index, &multiprocessors), "querying device %d", choice.index);
    std::string description = std::string(Api::kName) + " device " + std::to_string(choice.index) + " of " +
                              std::to_string(count) + " (" + choice.reason + "): " + Api::describe(choice.index);
    device->reset(new GpuDevice(choice.index, multiprocessors, std::move(description)));
    return Status::ok();
  }

  DeviceKind kind() const override { return Api::kKind; }
  std::string description() const override { return description_; }
  const char* vendorLibraryName() const override { return Api::kVendorLibrary; }
  Status activate() override { return makeCurrent<Api>(index_); }
  int index() const override { return index_; }

  Status allocate(void** ptr, size_t bytes) override {
    if (ptr == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "allocate: null output pointer");
    *ptr = nullptr;
    if (bytes == 0) return Status::ok();
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::malloc(ptr, bytes), "allocating %zu bytes of device memory", bytes);
    return Status::ok();
  }
  Status release(void* ptr) override {
    if (ptr == nullptr) return Status::ok();
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::free(ptr), "releasing device memory %p", ptr);
    return Status::ok();
  }
  Status allocateHost(void** ptr, size_t bytes) override {
    if (ptr == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "allocateHost: null output pointer");
    *ptr = nullptr;
    if (bytes == 0) return Status::ok();
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::mallocHost(ptr, bytes), "allocating %zu bytes of pinned host memory", bytes);
    return Status::ok();
  }
  Status releaseHost(void* ptr) override {
    if (ptr == nullptr) return Status::ok();
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::freeHost(ptr), "releasing pinned host memory %p", ptr);
    return Status::ok();
  }

  Status createStream(StreamHandle* stream) override {
    if (stream == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "createStream: null output pointer");
    HETCCL_TRY(makeCurrent<Api>(index_));
    typename Api::Stream created;
    HETCCL_GPU_TRY(Api::streamCreate(&created), "creating a stream");
    *stream = created;
    return Status::ok();
  }
  Status destroyStream(StreamHandle stream) override {
    if (stream == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "destroyStream: the default stream stays");
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::streamDestroy(asStream(stream)), "destroying stream %p", stream);
    return Status::ok();
  }
  Status synchronizeStream(StreamHandle stream) override {
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::streamSynchronize(asStream(stream)), "synchronizing stream %p", stream);
    return Status::ok();
  }
  Status recordEvent(StreamHandle stream, std::unique_ptr<DeviceEvent>* event) override {
    if (event == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "recordEvent: null output pointer");
    HETCCL_TRY(makeCurrent<Api>(index_));
    typename Api::Event created;
    HETCCL_TRY(events_->take(&created));
    auto owned = std::make_unique<GpuEvent<Api>>(events_, created);  // hands it back on failure
    HETCCL_GPU_TRY(Api::eventRecord(created, asStream(stream)), "recording an event on stream %p", stream);
    *event = std::move(owned);
    return Status::ok();
  }
  Status streamWaitEvent(StreamHandle stream, DeviceEvent& event) override {
    auto* gpuEvent = dynamic_cast<GpuEvent<Api>*>(&event);
    if (gpuEvent == nullptr)
      return HETCCL_STATUS(Code::InvalidArgument, "streamWaitEvent: not an event of a %s device", Api::kName);
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::streamWaitEvent(asStream(stream), gpuEvent->handle()), "making stream %p wait for an event",
                   stream);
    return Status::ok();
  }
  Status queryStream(StreamHandle stream, bool* idle) override {
    if (idle == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "queryStream: null output pointer");
    HETCCL_TRY(makeCurrent<Api>(index_));
    // "Not ready" is the runtime's answer, not a failure: work is still pending.
    const auto error = Api::streamQuery(asStream(stream));
    if (error == Api::kNotReady) {
      *idle = false;
      return Status::ok();
    }
    HETCCL_GPU_TRY(error, "querying stream %p", stream);
    *idle = true;
    return Status::ok();
  }

  // Checks, for each flag, that the device can wait for host memory (a cheap attribute query
  // once the driver's entry points are resolved), so that a device without it is found here
  // and its caller falls back to running synchronously, rather than at the first wait.
  Status createStreamFlag(std::unique_ptr<StreamFlag>* flag) override {
    if (flag == nullptr) return HETCCL_STATUS(Code::InvalidArgument, "createStreamFlag: null output pointer");
    HETCCL_TRY(makeCurrent<Api>(index_));
    std::string why;
    if (!Api::streamMemOpsAvailable(index_, &why))
      return HETCCL_STATUS(Code::DeviceError,
                           "%s device %d: stream memory operations are unavailable, streams cannot wait for "
                           "host-written flags: %s",
                           Api::kName, index_, why.c_str());
    typename FlagPool<Api>::Slot slot;
    HETCCL_TRY(flags_->take(&slot));
    *flag = std::make_unique<GpuStreamFlag<Api>>(flags_, slot);
    return Status::ok();
  }
  Status streamWaitFlag(StreamHandle stream, StreamFlag& flag, uint64_t value) override {
    auto* gpuFlag = dynamic_cast<GpuStreamFlag<Api>*>(&flag);
    if (gpuFlag == nullptr)
      return HETCCL_STATUS(Code::InvalidArgument, "streamWaitFlag: not a flag of a %s device", Api::kName);
    // setDevice even when the thread's device is already index_ (makeCurrent would skip it):
    // the CUDA wait is a driver call, which needs the device's context bound to this thread,
    // and a thread that never chose a device reports device 0 without one. cudaSetDevice binds
    // it (CUDA 12 on); it is cheap when already done.
    HETCCL_GPU_TRY(Api::setDevice(index_), "selecting device %d", index_);
    HETCCL_GPU_TRY(Api::streamWaitValue64(asStream(stream), gpuFlag->mapped(), value),
                   "making stream %p wait for a flag to reach %llu", stream, static_cast<unsigned long long>(value));
    return Status::ok();
  }

  Status copyAsync(void* dst, const void* src, size_t bytes, StreamHandle stream) override {
    if (bytes == 0 || dst == src) return Status::ok();
    if (dst == nullptr || src == nullptr)
      return HETCCL_STATUS(Code::InvalidArgument, "copyAsync: null pointer for %zu bytes", bytes);
    // The host backend copies overlapping ranges like memmove; GPU copies leave them undefined,
    // so refuse rather than corrupt.
    if (rangesPartiallyOverlap(dst, src, bytes))
      return HETCCL_STATUS(Code::InvalidArgument, "copyAsync: overlapping ranges of %zu bytes", bytes);
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::memcpyAsync(dst, src, bytes, asStream(stream)), "copying %zu bytes from %p to %p", bytes, src,
                   dst);
    return Status::ok();
  }
  Status reduceAsync(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                     StreamHandle stream) override {
    HETCCL_TRY(checkReduceArguments(dst, a, b, count, type, op));
    if (count == 0) return Status::ok();
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::launchReduce(dst, a, b, count, type, op, maxBlocks_, asStream(stream)),
                   "launching the %s %s reduction of %zu elements", elementTypeName(type), reduceOpName(op), count);
    return Status::ok();
  }
  Status divideAsync(void* dst, size_t count, ElementType type, uint64_t divisor, StreamHandle stream) override {
    HETCCL_TRY(checkDivideArguments(dst, count, type, divisor));
    if (count == 0 || divisor == 1) return Status::ok();
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::launchDivide(dst, count, type, divisor, maxBlocks_, asStream(stream)),
                   "launching the %s division of %zu elements", elementTypeName(type), count);
    return Status::ok();
  }
  Status convertAsync(void* dst, ElementType to, const void* src, ElementType from, size_t count,
                      StreamHandle stream) override {
    HETCCL_TRY(checkConvertArguments(dst, to, src, from, count));
    if (count == 0) return Status::ok();
    HETCCL_TRY(makeCurrent<Api>(index_));
    HETCCL_GPU_TRY(Api::launchConvert(dst, to, src, from, count, maxBlocks_, asStream(stream)),
                   "launching the conversion of %zu elements from %s to %s", count, elementTypeName(from),
                   elementTypeName(to));
    return Status::ok();
  }

 private:
  // Enough resident blocks of 256 threads to fill every multiprocessor (8 x 256 = 2048
  // threads, the most one holds on current NVIDIA and AMD parts); the grid-stride loop does
  // the rest.
  static constexpr unsigned kBlocksPerMultiprocessor = 8;

  GpuDevice(int index, int multiprocessors, std::string description)
      : index_(index),
        maxBlocks_(unsigned(multiprocessors > 0 ? multiprocessors : 1) * kBlocksPerMultiprocessor),
        description_(std::move(description)),
        events_(std::make_shared<EventPool<Api>>(index)),
        flags_(std::make_shared<FlagPool<Api>>()) {}

  static typename Api::Stream asStream(StreamHandle stream) { return static_cast<typename Api::Stream>(stream); }

  int index_;
  unsigned maxBlocks_;
  std::string description_;
  std::shared_ptr<EventPool<Api>> events_;
  std::shared_ptr<FlagPool<Api>> flags_;
};

}  // namespace hetccl
