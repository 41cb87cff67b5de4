// Freeing a destroyed communicator's bootstrap (over MPI: its private MPI communicator) only
// when nothing more can arrive on it.  Open MPI hands a message that arrives for a freed
// communicator to the next one made with the same context id -- which MPI_Comm_dup usually
// picks again at once -- where it breaks that communicator's per-peer message order (seen: the
// next communicator's first all-reduce hung).  After an ordinary life nothing can come late:
// every operation was matched on every rank.  A communicator that failed, was aborted, or left
// peers waiting has notices and unmatched messages in flight (core/control_channel.h), so its
// bootstrap is kept, never freed, for the rest of the process: a few kilobytes per such failure.
#pragma once

#include <memory>

#include "core/bootstrap.h"
#include "core/control_channel.h"

namespace hetccl {

// Takes the bootstrap and its channel: frees both now when the channel is quiet, else keeps
// them allocated until the process ends.
void retire(std::unique_ptr<Bootstrap> members, std::unique_ptr<ControlChannel> channel);

}  // namespace hetccl
