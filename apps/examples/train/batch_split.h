// How the global batch is cut among ranks.  A faster vendor can take more samples per step;
// the mean gradient stays the single-process one because each rank contributes the *sum* of
// its samples' gradients and the total is divided by the global batch (mlp.h).
//
//   --split even                      as equal as possible
//   --split proportional:3,1          weights per vendor, in order of first appearance by rank
//   --split proportional:3,3,1,1      ... or one weight per rank (the list's length decides)
//   --split nvidia=3,amd=1            weights per vendor, by name
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace hetccl_train {

// Each rank's weight from the --split text and every rank's vendor.  Returns "" or an error.
std::string splitWeights(const std::string& spec, const std::vector<std::string>& vendorOfRank,
                         std::vector<double>* weights);

// Samples per rank, summing to `batch`, proportional to `weights` (largest remainder first;
// ties go to the lower rank, so every rank computes the same split).
std::vector<uint64_t> divideBatch(uint64_t batch, const std::vector<double>& weights);

}  // namespace hetccl_train
