// A Transport moves bytes between ranks without blocking: the executor posts transfers and
// polls them, so several chunks can be in flight on one thread.  Implementations: MPI direct
// (mpi_transport.h), and two decorators over another transport: host staging for devices
// whose memory MPI cannot read (staged_transport.h), and link pacing for emulated islands
// (paced_transport.h).
// Buffers are device memory of the rank's device; a transport that cannot hand device
// pointers to its wire stages them itself.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "base/status.h"

namespace hetccl {

// One posted send or receive.
class Transfer {
 public:
  virtual ~Transfer() = default;
  // Sets *done once the transfer has completed (the buffer may then be reused or read).
  virtual Status test(bool* done) = 0;
  // When the transfer only waits for time to pass (an emulated link's modelled arrival), the
  // moment on monotonicSeconds()' clock before which test() cannot report completion, so a
  // poller may sleep until then; 0 when it may complete at any moment.
  virtual double notBefore() const { return 0; }
  // Stops a transfer that will not be waited for (its operation failed): true when it no
  // longer touches its buffer and may be destroyed with it, false when the wire may still
  // read or write the buffer later (MPI cannot cancel a receive it has matched, nor a send),
  // so the buffer, and this transfer, must outlive it (core/retirement.h).  Destroying a
  // transfer that is still pending withdraws what can be withdrawn.
  virtual bool withdraw() { return true; }
};

// Seconds on a clock every process of this machine shares (CLOCK_MONOTONIC).
double monotonicSeconds();

class Transport {
 public:
  virtual ~Transport() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  // The largest tag value the executor may use (tags 0..maxTag()).
  virtual int maxTag() const = 0;
  // *transfer receives the posted transfer.  What it held must be complete (or empty): a
  // transfer of this transport there may be reused in place (no allocation), anything else
  // is replaced.
  virtual Status postSend(const void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) = 0;
  virtual Status postRecv(void* buffer, size_t bytes, int peer, int tag, std::unique_ptr<Transfer>* transfer) = 0;
  // Blocks until at least one of `transfers` (posted here, not yet seen complete) completes,
  // for a poller that should sleep in the wire rather than test it (HETCCL_WAIT=block: a
  // simulator charges every test).  *blocked is false when this transport cannot wait on them
  // (a decorator's transfers, a loopback); the caller then polls as usual.
  virtual Status waitForAny(Transfer* const* transfers, size_t count, bool* blocked) {
    *blocked = false;
    return Status::ok();
  }
  // The peers whose messages to this rank have arrived where this transport keeps them and no
  // receive has taken them (control_channel.h: such a peer is in an operation this rank never
  // joined).  A transport whose messages all wait in the bootstrap's wire, where the control
  // channel looks itself, has none of its own.
  virtual std::vector<int> peersWithUnreceivedMessages() { return {}; }
};

}  // namespace hetccl
