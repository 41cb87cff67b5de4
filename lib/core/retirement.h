// Freeing a destroyed communicator's private MPI communicator only once nothing more can arrive
// on it.  Open MPI hands a message that arrives for a freed communicator to the next one made
// with the same context id -- which MPI_Comm_dup usually picks again at once -- where it breaks
// that communicator's per-peer message order (seen: the next communicator's first all-reduce
// hung).  A peer's control-channel notice is its last message (core/control_channel.h), so the
// MPI communicator is freed when every peer's notice has arrived: at destruction if they all
// left first, else at a later creation or destruction that finds them arrived.  Until then it
// stays allocated with its channel's receive posted (a few hundred bytes per peer).
#pragma once

#include <mpi.h>

#include <memory>

#include "core/control_channel.h"

namespace hetccl {

// Takes the communicator and its channel: frees both now if every peer has sent its notice,
// else keeps them until retireWhatIsDone() finds that they have.
void retire(MPI_Comm comm, std::unique_ptr<ControlChannel> channel);
// Frees the retired communicators whose peers have all sent their notices since.
void retireWhatIsDone();

}  // namespace hetccl
