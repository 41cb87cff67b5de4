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

// A 64-bit counter in memory that the host writes and the device reads: how the progress engine
// tells a caller's stream that an operation has finished.  The engine raises it to the
// operation's sequence number; a stream told to wait for value v runs on once it is >= v.  It
// only grows, so one flag serves every operation of a communicator, in order, and 64 bits
// never wrap.
class StreamFlag {
 public:
  virtual ~StreamFlag() = default;
  // Sets the counter to `value` (callers never lower it) and releases the streams waiting for
  // it.  Thread-safe; never blocks on the device.
  virtual void raise(uint64_t value) = 0;
  // The counter now.  A device may hand out a used flag again (a stream may still be about to
  // read a flag whose owner is gone, so GPU flags are recycled, never freed): its next owner
  // counts on from here.
  virtual uint64_t value() const = 0;
};

enum class DeviceKind { Host, Cuda, Hip };
const char* deviceKindName(DeviceKind kind);

class Device {
 public:
  virtual ~Device() = default;
  virtual DeviceKind kind() const = 0;
  // A human-readable description ("host", "NVIDIA H200 (0000:19:00.0)", ...).
  virtual std::string description() const = 0;
  // Whether host code (and MPI) may read and write this device's memory directly: only the
  // plain host device's.  Everything else moves device memory with the device's copies.
  virtual bool hostReadsMemory() const { return false; }

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
  // *event: the event, now recorded on `stream`.  An event of this device already in *event may
  // be recorded again in place rather than replaced (no allocation); any other is replaced.
  virtual Status recordEvent(StreamHandle stream, std::unique_ptr<DeviceEvent>* event) = 0;
  // Makes `stream` wait for `event` before running work enqueued after this call.
  virtual Status streamWaitEvent(StreamHandle stream, DeviceEvent& event) = 0;
  // *idle = every operation enqueued on `stream` so far has completed (cudaStreamQuery).
  virtual Status queryStream(StreamHandle stream, bool* idle) = 0;
  // A mark for the last operation enqueued on `stream`, unique across the device's streams
  // and their lifetimes, so that equal marks mean "nothing enqueued in between"; 0 where the
  // device cannot tell (GPUs, inline streams).  The progress engine uses it to see that a
  // stream holds nothing but its own flag waits (runtime/progress_engine.h).
  virtual uint64_t lastEnqueuedMark(StreamHandle /*stream*/) { return 0; }

  // Host-written flags (above).  A device that cannot make its streams wait for host memory
  // returns an error from createStreamFlag; hetccl then runs its operations on the calling
  // thread instead of a progress thread.
  virtual Status createStreamFlag(std::unique_ptr<StreamFlag>* flag) = 0;
  // Work enqueued on `stream` after this call runs only once `flag` has reached `value`.
  virtual Status streamWaitFlag(StreamHandle stream, StreamFlag& flag, uint64_t value) = 0;

  // An inline stream runs each copy and reduction on the calling thread before the enqueueing
  // call returns, and its events are complete when recorded: for small operations, where
  // handing work to a queue costs more than the work.  Only a device whose memory the host
  // can touch has them; the others return an error.  Destroyed with destroyStream.
  virtual bool hasInlineStreams() const { return false; }
  virtual Status createInlineStream(StreamHandle* stream);

  // Asynchronous copy of `bytes` between any two device or host-allocated buffers.
  virtual Status copyAsync(void* dst, const void* src, size_t bytes, StreamHandle stream) = 0;
  // dst[i] = a[i] (op) b[i] for i < count.  dst may alias a or b exactly (not partially).
  virtual Status reduceAsync(void* dst, const void* a, const void* b, size_t count, ElementType type, ReduceOp op,
                             StreamHandle stream) = 0;
  // dst[i] = dst[i] / divisor: the final step of an average.
  virtual Status divideAsync(void* dst, size_t count, ElementType type, uint64_t divisor, StreamHandle stream) = 0;

  // Which of the vendor's visible devices this is (what cudaSetDevice takes); 0 for the host
  // device, the only one of its kind.  Last in the table: GPU modules are built beside it.
  virtual int index() const { return 0; }

  // dst[i] = src[i] converted from `from` to `to`, for i < count: float16/bfloat16 to float32
  // (exact) or back (reduce_ops.h's rounding), the two ends of fp32 accumulation
  // (HETCCL_ACCUMULATE).  dst and src must not overlap.
  virtual Status convertAsync(void* dst, ElementType to, const void* src, ElementType from, size_t count,
                              StreamHandle stream) = 0;
};

}  // namespace hetccl
