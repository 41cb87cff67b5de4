// The training data: an endless stream of (x, y) samples defined by a seed.  Sample i is a pure
// function of (seed, i), so the global batch of step t is samples [t*B, (t+1)*B) and each rank
// generates only its own slice of it.
#pragma once

#include <array>
#include <cstdint>

namespace hetccl_train {

constexpr int kInputs = 16;

struct Sample {
  std::array<float, kInputs> x;
  float y;
};

class SyntheticData {
 public:
  explicit SyntheticData(uint64_t seed);
  Sample sample(uint64_t index) const;

 private:
  uint64_t seed_;
  std::array<float, kInputs> teacher_;  // the hidden direction the target depends on
};

}  // namespace hetccl_train
