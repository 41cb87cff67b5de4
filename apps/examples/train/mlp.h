// The model: a two-layer perceptron  y_hat = w2 . tanh(W1 x + b1) + b2, trained on the loss
// 0.5 (y_hat - y)^2.  Its parameters are one flat float vector, so a gradient is one buffer and
// one all-reduce.  Layout: W1 (hidden x inputs, row-major), b1 (hidden), w2 (hidden), b2 (1).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "synthetic_data.h"

namespace hetccl_train {

struct MlpShape {
  int inputs = kInputs;
  int hidden = 32;
  size_t parameterCount() const {
    return static_cast<size_t>(hidden) * static_cast<size_t>(inputs) + 2 * static_cast<size_t>(hidden) + 1;
  }
};

// Initial parameters from the seed (scaled uniform, as Glorot's), identical on every rank.
std::vector<float> initialParameters(const MlpShape& shape, uint64_t seed);

// Sums of the per-sample loss and gradient over samples [first, first + count): the result has
// parameterCount() gradient sums followed by the loss sum.  The sums run in double within the
// call and are rounded to float once at the end, so how the batch is cut into slices changes
// the result only through those roundings and the float32 sum of the slices (the all-reduce).
std::vector<float> sumOverSamples(const MlpShape& shape, const std::vector<float>& parameters,
                                  const SyntheticData& data, uint64_t first, uint64_t count);

// One step of plain SGD with the mean gradient: sums / globalBatch.  Every rank applies it to
// the same (all-reduced) sums, so every rank keeps the same parameters.  Returns the mean loss.
float applyMeanGradient(const std::vector<float>& sums, uint64_t globalBatch, float learningRate,
                        std::vector<float>* parameters);

}  // namespace hetccl_train
