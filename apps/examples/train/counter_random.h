// Counter-based random numbers: the value for (stream, index) is a pure function of them, so
// any rank can generate any sample of the data set without generating the ones before it, and
// every rank (and the single-process reference) sees the same bits.
#pragma once

#include <cstdint>

namespace hetccl_train {

// SplitMix64's finaliser: a bijective mix with good avalanche, enough for synthetic data.
inline uint64_t mix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// The k-th 64-bit value of stream `stream` under `seed`.
inline uint64_t counterRandom(uint64_t seed, uint64_t stream, uint64_t k) {
  return mix64(mix64(seed ^ mix64(stream)) ^ k);
}

// Uniform in [-1, 1), built from 24 random bits with exact float arithmetic, so the value does
// not depend on the compiler, the libm or the machine.
inline float uniformSigned(uint64_t bits) {
  const float unit = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);  // [0, 1)
  return 2.0f * unit - 1.0f;
}

}  // namespace hetccl_train
