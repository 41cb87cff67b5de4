// What rank 0 prints: the run's setup (how the batch was split), the per-step loss table next
// to the single-process reference, and the verdict line.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "mlp.h"
#include "train_options.h"

namespace hetccl_train {

std::string describeRun(const TrainOptions& options, const MlpShape& shape,
                        const std::vector<std::string>& vendorOfRank, const std::vector<uint64_t>& samplesOfRank);
std::string lossTableHeader();
std::string lossTableRow(int step, float loss, float reference);

struct Verdict {
  int nranks = 0;
  bool weightsIdentical = false;
  uint64_t weightHash = 0;
  double maxLossDifference = 0;          // absolute, over all steps
  double maxRelativeLossDifference = 0;  // over all steps
  double maxWeightDifference = 0;        // final weights against the reference's
  double tolerance = 0;
  std::string algorithm;
  bool pass() const { return weightsIdentical && maxRelativeLossDifference <= tolerance; }
};
std::string verdictLines(const Verdict& verdict);

}  // namespace hetccl_train
