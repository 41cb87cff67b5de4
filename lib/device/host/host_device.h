// The host "device": ordinary memory, worker-thread streams and the host reduction loops behind
// the Device interface, so that every path of the library runs on a machine without a GPU.
// It is stricter than it has to be where that catches bugs a GPU would: device and host
// allocations are tracked separately, and unknown pointers or streams are rejected.  The strict
// variant (HETCCL_DEVICE=host-strict) goes further: its device memory cannot be read by the
// host at all (strict_memory.h), so only what a GPU allows works.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

#include "device/device.h"
#include "device/host/host_stream.h"
#include "device/host/strict_memory.h"

namespace hetccl {

class HostDevice : public Device {
 public:
  // inlineStreams: every stream, the default one too, runs its tasks on the enqueuing thread
  // (HETCCL_HOST_STREAMS=inline): a process with no threads of hetccl's, as a simulator needs.
  explicit HostDevice(bool strict = false, bool inlineStreams = false);
  ~HostDevice() override;  // drains and destroys every stream, frees what is still allocated

  DeviceKind kind() const override { return DeviceKind::Host; }
  std::string description() const override;
  bool hostReadsMemory() const override { return !strict_; }

  Status allocate(void** ptr, size_t bytes) override;
  Status release(void* ptr) override;
  Status allocateHost(void** ptr, size_t bytes) override;
  Status releaseHost(void* ptr) override;

  Status createStream(StreamHandle* stream) override;  // a worker stream
  Status destroyStream(StreamHandle stream) override;
  Status synchronizeStream(StreamHandle stream) override;
  Status recordEvent(StreamHandle stream, std::unique_ptr<DeviceEvent>* event) override;
  Status streamWaitEvent(StreamHandle stream, DeviceEvent& event) override;
  Status queryStream(StreamHandle stream, bool* idle) override;
  Status createStreamFlag(std::unique_ptr<StreamFlag>* flag) override;
  Status streamWaitFlag(StreamHandle stream, StreamFlag& flag, uint64_t value) override;
  uint64_t lastEnqueuedMark(StreamHandle stream) override;
  bool hasInlineStreams() const override { return true; }
  Status createInlineStream(StreamHandle* stream) override;

  Status copyAsync(void* dst, const void* src, size_t bytes, StreamHandle stream) override;
  Status reduceAsync(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                     StreamHandle stream) override;
  Status divideAsync(void* dst, size_t count, ElementType type, uint64_t divisor, StreamHandle stream) override;
  Status convertAsync(void* dst, ElementType to, const void* src, ElementType from, size_t count,
                      StreamHandle stream) override;

 private:
  using AllocationSet = std::unordered_set<void*>;
  Status allocateInto(AllocationSet& allocations, void** ptr, size_t bytes);
  Status releaseFrom(AllocationSet& allocations, void* ptr, const char* releaser, const char* allocator);
  // nullptr -> the default stream; otherwise a stream this device created, or an error.
  Status findStream(StreamHandle handle, HostStream** stream);
  Status addStream(HostStream::Mode mode, StreamHandle* stream);

  // Where the stream workers reach [ptr, ptr + bytes): ptr itself unless strict.
  Status reach(const void* ptr, size_t bytes, void** reachable);

  const bool strict_;
  const HostStream::Mode streamMode_;              // what createStream makes
  StrictMemory strictMemory_;                      // the strict device's device memory
  static std::atomic<uint64_t> streamGeneration_;  // see findStream
  std::mutex mutex_;                               // guards the sets and the stream map, not the streams' work
  AllocationSet deviceAllocations_;
  AllocationSet hostAllocations_;
  std::unordered_map<StreamHandle, std::unique_ptr<HostStream>> streams_;
  HostStream defaultStream_;
};

std::unique_ptr<Device> makeHostDevice(bool strict = false, bool inlineStreams = false);

}  // namespace hetccl
