#include "train_report.h"
#include "common/text_format.h"

#include <cinttypes>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace hetccl_train {

namespace {

using hetccl_apps::format;

}  // namespace

std::string describeRun(const TrainOptions& o, const MlpShape& shape, const std::vector<std::string>& vendorOfRank,
                        const std::vector<uint64_t>& samplesOfRank) {
  std::string s;
  s += format(
      "# hetccl-train: MLP %d -> %d (tanh) -> 1, %zu parameters, squared loss on synthetic data "
      "(seed %" PRIu64 ")\n",
      shape.inputs, shape.hidden, shape.parameterCount(), o.seed);
  s += format("# %zu ranks, global batch %" PRIu64 " per step, --split %s, lr %g, %d steps\n", vendorOfRank.size(),
              o.batch, o.split.c_str(), static_cast<double>(o.learningRate), o.steps);
  s += "#   rank  vendor    samples  share\n";
  for (size_t r = 0; r < vendorOfRank.size(); ++r)
    s += format("#   %4zu  %-8s %8" PRIu64 "  %5.1f%%\n", r, vendorOfRank[r].c_str(), samplesOfRank[r],
                100.0 * static_cast<double>(samplesOfRank[r]) / static_cast<double>(o.batch));
  s += format("# gradient = (sum over ranks of each rank's gradient sum) / %" PRIu64
              ": every sample weighs the same whatever the split,\n"
              "# so the loss follows the single-process run up to the order of float32 sums\n",
              o.batch);
  return s;
}

std::string lossTableHeader() {
  return format("#%5s  %13s  %13s  %10s  %10s\n", "step", "loss", "reference", "|diff|", "rel diff");
}

std::string lossTableRow(int step, float loss, float reference) {
  const double diff = std::fabs(static_cast<double>(loss) - static_cast<double>(reference));
  const double rel = reference != 0.0f ? diff / std::fabs(static_cast<double>(reference)) : diff;
  return format("%6d  %13.8f  %13.8f  %10.3e  %10.3e\n", step, static_cast<double>(loss),
                static_cast<double>(reference), diff, rel);
}

std::string verdictLines(const Verdict& v) {
  std::string s;
  s += format("# all-reduce: hetcclAllReduce float32 sum, algorithm %s\n", v.algorithm.c_str());
  s += format("# max |weight - reference weight| after training = %.3e\n", v.maxWeightDifference);
  s += format("weights identical on all %d ranks: %s (hash %016" PRIx64
              "), max |loss - reference| = %.3e "
              "(relative %.3e, tolerance %.0e): %s\n",
              v.nranks, v.weightsIdentical ? "yes" : "NO", v.weightHash, v.maxLossDifference,
              v.maxRelativeLossDifference, v.tolerance, v.pass() ? "PASS" : "FAIL");
  return s;
}

}  // namespace hetccl_train
