// The device interface: what hetccl needs from a rank's accelerator (or from the host, when
// there is none).  CUDA and HIP backends implement the same interface, so it speaks of
// device memory, streams and events, never of host pointers: every data movement and every
// reduction is enqueued on a stream and completes asynchronously.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "base/element.h"
#include "base/status.h"

namespace hetccl {

// An opaque stream of the device. For the host backend it is a worker thread's queue.
using StreamHandle = void*;

// A point in a stream's order. Recorded on one stream, then waited on by the host or by
// another stream.
class DeviceEvent {
 public:
  virtual ~DeviceEvent() = default;
  // True once every operation enqueued on the stream before record() has completed.
  virtual bool query() = 0;
  virtual Status synchronize() = 0;
};

enum class DeviceKind { Host, Cuda, Hip };
const char* deviceKindName(DeviceKind kind);

class Device {
 public:
  virtual ~Device() = default;
  virtual DeviceKind kind() const = 0;
  // A human-readable description ("host", "NVIDIA H200 (0000:19:00.0)", ...).
  virtual std::string description() const = 0;

  // The file name of the vendor collectives library for islands of this device (NCCL's,
  // RCCL's), or nullptr when there is none (the host).  Opened at run time by the core.
  virtual const char* vendorLibraryName() const { return nullptr; }
  // Makes the device current for the calling thread, so that a vendor library called next
  // (which picks the thread's current device) finds it.
  virtual Status activate() { return Status::ok(); }

  // Device memory.  Not dereferenceable by the host in general.
  virtual Status allocate(void** ptr, size_t bytes) = 0;
  virtual Status release(void* ptr) = 0;
  // Host memory the device can copy to and from asynchronously (pinned for GPUs).
  virtual Status allocateHost(void** ptr, size_t bytes) = 0;
  virtual Status releaseHost(void* ptr) = 0;

  // Streams.  The default stream (nullptr) always exists.
  virtual Status createStream(StreamHandle* stream) = 0;
  virtual Status destroyStream(StreamHandle stream) = 0;
  virtual Status synchronizeStream(StreamHandle stream) = 0;
  virtual Status recordEvent(StreamHandle stream, std::unique_ptr<DeviceEvent>* event) = 0;
  // Makes `stream` wait for `event` before running work enqueued after this call.
  virtual Status streamWaitEvent(StreamHandle stream, DeviceEvent& event) = 0;

  // Asynchronous copy of `bytes` between any two device or host-allocated buffers.
  virtual Status copyAsync(void* dst, const void* src, size_t bytes, StreamHandle stream) = 0;
  // dst[i] = a[i] (op) b[i] for i < count.  dst may alias a or b exactly (not partially).
  virtual Status reduceAsync(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                             StreamHandle stream) = 0;
  // dst[i] = dst[i] / divisor: the final step of an average.
  virtual Status divideAsync(void* dst, size_t count, ElementType type, uint64_t divisor, StreamHandle stream) = 0;
};

}  // namespace hetccl
