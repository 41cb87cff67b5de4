// What a hetcclUniqueId carries: a random token that tells one communicator's creation from
// every other's, and the MPI_COMM_WORLD rank of the process that made it, where the members
// meet (core/rendezvous.h).  Behind a magic and a layout version, so that an id not made here
// (by a real NCCL, or 128 bytes of anything) is recognised and refused.
#pragma once

#include <cstdint>

#include "base/status.h"
#include "hetccl/hetccl.h"

namespace hetccl {

struct UniqueIdContents {
  uint64_t token = 0;
  int makerJobRank = 0;  // the maker's rank in MPI_COMM_WORLD
  int jobSize = 0;       // MPI_COMM_WORLD's size where it was made (an id from another job differs)
};

hetcclUniqueId makeUniqueId(int makerJobRank, int jobSize);
// InvalidArgument, saying what is wrong, for an id not made by makeUniqueId.
Status readUniqueId(const hetcclUniqueId& id, UniqueIdContents* contents);

}  // namespace hetccl
