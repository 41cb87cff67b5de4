#include "weight_identity.h"

#include <cstring>

namespace hetccl_train {

uint64_t hashBits(const std::vector<float>& values) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (float v : values) {
    uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    for (int b = 0; b < 4; ++b) {
      h ^= (bits >> (8 * b)) & 0xffu;
      h *= 0x100000001b3ull;
    }
  }
  return h;
}

bool sameOnAllRanks(uint64_t hash, MPI_Comm comm) {
  uint64_t low = 0, high = 0;
  MPI_Allreduce(&hash, &low, 1, MPI_UINT64_T, MPI_MIN, comm);
  MPI_Allreduce(&hash, &high, 1, MPI_UINT64_T, MPI_MAX, comm);
  return low == high;
}

}  // namespace hetccl_train
