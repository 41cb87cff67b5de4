#include "synthetic_data.h"

#include "counter_random.h"

namespace hetccl_train {

namespace {
// Separate streams for the teacher and the samples, so changing one never shifts the other.
constexpr uint64_t kTeacherStream = 1;
constexpr uint64_t kSampleStream = 2;
}  // namespace

SyntheticData::SyntheticData(uint64_t seed) : seed_(seed) {
  for (int j = 0; j < kInputs; ++j)
    teacher_[j] = 0.5f * uniformSigned(counterRandom(seed_, kTeacherStream, static_cast<uint64_t>(j)));
}

Sample SyntheticData::sample(uint64_t index) const {
  Sample s;
  // kInputs + 1 values per sample: the inputs, then the noise.
  const uint64_t first = index * (kInputs + 1);
  float t = 0.0f;
  for (int j = 0; j < kInputs; ++j) {
    s.x[j] = uniformSigned(counterRandom(seed_, kSampleStream, first + static_cast<uint64_t>(j)));
    t += teacher_[j] * s.x[j];
  }
  // A smooth non-linear target (a cubic, not sin: polynomials need no libm, so the data set is
  // the same bits on every machine) plus a little noise, so the loss cannot reach zero.
  const float noise = 0.01f * uniformSigned(counterRandom(seed_, kSampleStream, first + kInputs));
  s.y = t - 0.3f * t * t * t + noise;
  return s;
}

}  // namespace hetccl_train
