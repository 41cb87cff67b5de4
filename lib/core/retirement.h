// Freeing a destroyed communicator's bootstrap (over MPI: its private MPI communicator) and its
// data path only when nothing more can arrive on them.
//
// The bootstrap: Open MPI hands a message that arrives for a freed communicator to the next one
// made with the same context id -- which MPI_Comm_dup usually picks again at once -- where it
// breaks that communicator's per-peer message order (seen: the next communicator's first
// all-reduce hung).
//
// The data path: a receive that MPI had already matched when its peer fell silent (a link
// down in the middle of a rendezvous) cannot be cancelled; when the network comes back its
// data lands in the memory the receive was posted with.  Freed, that memory belongs to
// someone else by then (seen on the namespace cluster: a new communicator's heap corrupted
// after a link came back).  So the executors, whose unfinished transfers still hold those
// requests, the transport and the staging and scratch memory stay allocated too.
//
// After an ordinary life nothing can come late: every operation was matched on every rank.  A
// communicator that failed, was aborted, or left peers waiting has notices and unmatched
// messages in flight (core/control_channel.h), so its bootstrap is kept, never freed, for the
// rest of the process: a few kilobytes per such failure.  Its data path is kept too when a
// transfer of the failed operation could not be withdrawn: its staging and scratch memory
// (chunks, not whole buffers).  The caller's buffers of that operation are the caller's: MPI
// may still write into them if the network comes back (README, "Failures").
#pragma once

#include <memory>

#include "core/bootstrap.h"
#include "core/control_channel.h"
#include "runtime/device_buffer.h"
#include "runtime/executor.h"
#include "transport/transport.h"

namespace hetccl {

// What a communicator leaves behind, in the order it is freed.
struct CommunicatorRemains {
  std::unique_ptr<Executor> executor;
  std::unique_ptr<Executor> inlineExecutor;
  std::unique_ptr<Transport> transport;
  std::unique_ptr<DeviceBuffer> scratch;
  std::unique_ptr<ControlChannel> channel;
  std::unique_ptr<Bootstrap> members;
};

// Frees the data path now unless a transfer could not be withdrawn, and the bootstrap with the
// channel when the channel is quiet; keeps the rest allocated until the process ends.
void retire(CommunicatorRemains remains);

}  // namespace hetccl
