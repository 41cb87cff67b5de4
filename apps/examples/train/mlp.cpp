#include "mlp.h"

#include <cmath>

#include "counter_random.h"

namespace hetccl_train {

namespace {
constexpr uint64_t kInitStream = 3;  // distinct from the data's streams
}  // namespace

std::vector<float> initialParameters(const MlpShape& shape, uint64_t seed) {
  std::vector<float> p(shape.parameterCount(), 0.0f);
  const size_t nW1 = static_cast<size_t>(shape.hidden) * static_cast<size_t>(shape.inputs);
  const float scale1 = std::sqrt(6.0f / static_cast<float>(shape.inputs + shape.hidden));
  const float scale2 = std::sqrt(6.0f / static_cast<float>(shape.hidden + 1));
  for (size_t k = 0; k < nW1; ++k) p[k] = scale1 * uniformSigned(counterRandom(seed, kInitStream, k));
  // Biases start at zero; w2 follows b1.
  const size_t w2 = nW1 + static_cast<size_t>(shape.hidden);
  for (int h = 0; h < shape.hidden; ++h)
    p[w2 + static_cast<size_t>(h)] =
        scale2 * uniformSigned(counterRandom(seed, kInitStream, w2 + static_cast<size_t>(h)));
  return p;
}

std::vector<float> sumOverSamples(const MlpShape& shape, const std::vector<float>& parameters,
                                  const SyntheticData& data, uint64_t first, uint64_t count) {
  const size_t n = shape.parameterCount();
  const size_t H = static_cast<size_t>(shape.hidden);
  const size_t D = static_cast<size_t>(shape.inputs);
  const float* W1 = parameters.data();
  const float* b1 = W1 + H * D;
  const float* w2 = b1 + H;
  const float b2 = w2[H];
  std::vector<double> sum(n + 1, 0.0);
  std::vector<float> hidden(H);
  for (uint64_t i = first; i < first + count; ++i) {
    const Sample s = data.sample(i);
    // Forward, in float like the device kernels a real trainer would use.
    float yHat = b2;
    for (size_t h = 0; h < H; ++h) {
      float z = b1[h];
      for (size_t j = 0; j < D; ++j) z += W1[h * D + j] * s.x[j];
      hidden[h] = std::tanh(z);
      yHat += w2[h] * hidden[h];
    }
    const float err = yHat - s.y;
    // Backward: d loss / d y_hat = err; accumulate in double (see the header for why).
    for (size_t h = 0; h < H; ++h) {
      const float dz = err * w2[h] * (1.0f - hidden[h] * hidden[h]);
      for (size_t j = 0; j < D; ++j) sum[h * D + j] += static_cast<double>(dz * s.x[j]);
      sum[H * D + h] += static_cast<double>(dz);
      sum[H * D + H + h] += static_cast<double>(err * hidden[h]);
    }
    sum[n - 1] += static_cast<double>(err);
    sum[n] += static_cast<double>(0.5f * err * err);
  }
  return std::vector<float>(sum.begin(), sum.end());
}

float applyMeanGradient(const std::vector<float>& sums, uint64_t globalBatch, float learningRate,
                        std::vector<float>* parameters) {
  // Dividing by the global batch, not by the rank count: each rank's sum covers however many
  // samples it took, so an uneven split weights every sample equally, as one process would.
  const float batch = static_cast<float>(globalBatch);
  for (size_t k = 0; k < parameters->size(); ++k) (*parameters)[k] -= learningRate * (sums[k] / batch);
  return sums[parameters->size()] / batch;
}

}  // namespace hetccl_train
