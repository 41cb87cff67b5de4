// The check that data parallelism did not fork the model: every rank's parameters must be the
// same bits.  Each rank hashes its bits; the minimum and maximum hash over ranks agree only if
// every rank's hash is the same.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace hetccl_train {

// FNV-1a over the bytes of the floats: any differing bit changes it (a hash, not a proof, but
// a 64-bit collision between two almost-equal weight vectors is not a practical concern).
uint64_t hashBits(const std::vector<float>& values);

// True on every rank when every rank passed the same hash (collective).
bool sameOnAllRanks(uint64_t hash, MPI_Comm comm);

}  // namespace hetccl_train
