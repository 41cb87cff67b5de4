// The contents of an ncclUniqueId made by the drop-in.
//
// NCCL's id carries the address of a bootstrap socket; hetccl's ranks already share MPI, so the
// id needs to carry only something that tells one communicator's ranks from another's: a random
// 64-bit token, behind a magic that recognises ids not made here (by a real NCCL, say).
#pragma once

#include <cstdint>

#include <nccl.h>

namespace hetccl_nccl {

// A fresh id: magic and a token from the operating system's random source.
ncclUniqueId makeUniqueId();
// The token of an id made by makeUniqueId, or false for any other 128 bytes.
bool readUniqueIdToken(const ncclUniqueId& id, uint64_t* token);
// A non-negative MPI_Comm_split colour derived from the token (every bit of it mixed in).
int colourOfToken(uint64_t token);

}  // namespace hetccl_nccl
