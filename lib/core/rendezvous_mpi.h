// How the members of a communicator made from a unique id find one another over MPI, with no
// other process taking part (hetcclCommInitRank).
//
// Each member tells the id's maker (its MPI_COMM_WORLD rank is in the id) its rank and its own
// MPI_COMM_WORLD rank; once all have arrived the maker answers each with every member's, and
// the members then form their MPI communicator with MPI_Comm_create_group, which only the
// group's processes call.  All of it travels on the job channel: hetccl's own duplicate of
// MPI_COMM_WORLD, made when MPI starts (hetcclJobInit).  Not on MPI_COMM_WORLD itself: the
// program's own receives there (MPI_ANY_TAG) would take hetccl's messages, and Open MPI's
// MPI_Comm_create_group on a communicator with such a receive posted hangs (checked with Open
// MPI 4.1).
#pragma once

#include <functional>
#include <vector>

#include <mpi.h>

#include "base/status.h"
#include "core/unique_id.h"

namespace hetccl {

// Makes the job channel unless it exists (collective over MPI_COMM_WORLD then); `why` says who
// asks, for the log when it is made late: anything but "hetcclJobInit" (MPI's start, or a
// creation over every process of the job) warns.  MPI must be initialised.
Status ensureJobChannel(const char* why);
// The job channel; ensureJobChannel must have succeeded.
MPI_Comm jobChannel();

// Blocks until every member of the id's communicator has arrived, then sets *jobRanks to the
// members' MPI_COMM_WORLD ranks, in the order of their ranks.  Stops with Code::Aborted when
// `stopped` answers true (polled), with Code::Timeout after `timeoutSeconds` (0: never).
// Inconsistent arguments (another nranks, a rank given twice) fail every member that arrived.
Status meetMembers(const UniqueIdContents& id, int nranks, int rank, const std::function<bool()>& stopped,
                   double timeoutSeconds, std::vector<int>* jobRanks);

// The MPI_Comm_create_group tag of the id's communicator (equal on every member, and unequal
// to the rendezvous's own tags).
int creationTag(const UniqueIdContents& id);

}  // namespace hetccl
