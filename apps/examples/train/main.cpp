// hetccl-train: data-parallel SGD on a small MLP, gradients summed across ranks by hetccl.
//
// Each step, rank r takes its slice of the global batch (batch_split.h), sums its samples'
// gradients and losses, and hetcclAllReduce adds the slices up; every rank then divides by the
// global batch and applies the same update.  Rank 0 also trains a single-process reference on
// the whole batch, in the same run, and the program checks two things:
//
// 1. The weights are the same bits on every rank (hetccl gives every rank the identical sum,
//    whichever vendors take part), compared through a hash of the bits.
//
// 2. The loss follows the reference at every step within --tolerance (relative, 1e-5).  The two
//    runs do the same arithmetic except where the batch is cut: each rank's double sum is
//    rounded to float once, and the P rank sums are added in float32 in the all-reduce's order
//    instead of one rounding of the whole batch's sum.  With u = 2^-24 that changes a step's
//    sums by at most about (P + 1) u of the sum of magnitudes: for the loss sum (all terms
//    positive) that is ~3e-7 relative at 4 ranks.  Gradient descent at a stable learning rate
//    carries such perturbations forward without blowing them up, so over tens of steps the
//    loss stays around 1e-7 relative; 1e-5 leaves ample margin.  A real bug does not hide in
//    it: a sample dropped or counted twice changes the very first loss by about 1/batch (one
//    sample dropped at batch 256 showed 9e-3), a wrong scale or a missing rank by far more.
//
// Exit status: 0 when both hold, 1 when either fails, 2 for bad arguments.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "batch_split.h"
#include "gradient_allreduce.h"
#include "mlp.h"
#include "rank_vendor.h"
#include "synthetic_data.h"
#include "train_options.h"
#include "train_report.h"
#include "weight_identity.h"

using namespace hetccl_train;

namespace {

// True on every rank when `ok` is true on every rank (collective), so all ranks leave together.
bool allRanksOk(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

// Prints on rank 0 only; the table is the run's output, not one line per rank.
void print0(int rank, const std::string& text) {
  if (rank != 0) return;
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
}

int train(const TrainOptions& options, int rank, int nranks, const std::vector<uint64_t>& samplesOfRank) {
  uint64_t offset = 0;  // where this rank's slice starts within each step's batch
  for (int r = 0; r < rank; ++r) offset += samplesOfRank[static_cast<size_t>(r)];
  const uint64_t mySamples = samplesOfRank[static_cast<size_t>(rank)];

  MlpShape shape;
  shape.hidden = options.hidden;
  const SyntheticData data(options.seed);
  std::vector<float> weights = initialParameters(shape, options.seed);
  std::vector<float> referenceWeights = weights;  // used on rank 0 only
  const int every = options.printEvery > 0 ? options.printEvery : std::max(1, (options.steps + 19) / 20);

  Verdict verdict;
  verdict.nranks = nranks;
  verdict.tolerance = options.tolerance;
  {
    // One buffer: the gradient sums and, last, the loss sum, so a step is one all-reduce.
    GradientAllReduce allReduce(MPI_COMM_WORLD, shape.parameterCount() + 1);
    print0(rank, lossTableHeader());
    for (int step = 0; step < options.steps; ++step) {
      const uint64_t batchStart = static_cast<uint64_t>(step) * options.batch;
      std::vector<float> sums = sumOverSamples(shape, weights, data, batchStart + offset, mySamples);
      allReduce.sum(&sums);
      const float loss = applyMeanGradient(sums, options.batch, options.learningRate, &weights);
      if (rank != 0) continue;
      const std::vector<float> referenceSums = sumOverSamples(shape, referenceWeights, data, batchStart, options.batch);
      const float reference = applyMeanGradient(referenceSums, options.batch, options.learningRate, &referenceWeights);
      const double diff = std::fabs(static_cast<double>(loss) - static_cast<double>(reference));
      verdict.maxLossDifference = std::max(verdict.maxLossDifference, diff);
      verdict.maxRelativeLossDifference =
          std::max(verdict.maxRelativeLossDifference, diff / std::fabs(static_cast<double>(reference)));
      if (step % every == 0 || step == options.steps - 1) print0(rank, lossTableRow(step, loss, reference));
    }
    verdict.algorithm = allReduce.algorithm();
  }
  verdict.weightHash = hashBits(weights);
  verdict.weightsIdentical = sameOnAllRanks(verdict.weightHash, MPI_COMM_WORLD);
  for (size_t k = 0; k < weights.size(); ++k)
    verdict.maxWeightDifference =
        std::max(verdict.maxWeightDifference,
                 std::fabs(static_cast<double>(weights[k]) - static_cast<double>(referenceWeights[k])));
  print0(rank, verdictLines(verdict));
  // Only rank 0 knows the loss comparison; every rank exits with its verdict.
  int pass = verdict.pass() ? 1 : 0;
  MPI_Bcast(&pass, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return pass ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  // MPI_THREAD_MULTIPLE: hetccl's progress threads call MPI while this thread may too;
  // with less, hetccl runs every operation on the calling thread.
  int threadLevel = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &threadLevel);
  int rank = 0, nranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);

  TrainOptions options;
  // Every check below agrees across ranks before anyone goes on, so a rank that fails one
  // never leaves the others waiting in a collective.
  std::string error = parseTrainOptions(argc, argv, &options);
  if (!allRanksOk(error.empty()) && error.empty()) error = "another rank's arguments are bad";
  std::vector<uint64_t> samplesOfRank;
  std::vector<std::string> vendorOfRank;
  if (error.empty() && !options.help) {
    const std::string vendor = thisRankVendor(options.vendor, &error);
    if (allRanksOk(error.empty())) {
      vendorOfRank = allVendors(vendor, MPI_COMM_WORLD);
      std::vector<double> weights;
      error = splitWeights(options.split, vendorOfRank, &weights);
      if (error.empty()) samplesOfRank = divideBatch(options.batch, weights);
    } else if (error.empty()) {
      error = "another rank could not tell its vendor";
    }
  }
  if (options.help || !error.empty()) {
    if (rank == 0 && !error.empty()) std::fprintf(stderr, "hetccl-train: %s\n", error.c_str());
    if (rank == 0) std::fputs(trainUsage(), error.empty() ? stdout : stderr);
    MPI_Finalize();
    return options.help && error.empty() ? 0 : 2;
  }

  print0(rank, describeRun(options, MlpShape{kInputs, options.hidden}, vendorOfRank, samplesOfRank));
  int status = 1;
  try {
    status = train(options, rank, nranks, samplesOfRank);
  } catch (const std::exception& e) {
    // The other ranks may be waiting in a collective: abort the job rather than hang it.
    std::fprintf(stderr, "hetccl-train: rank %d: %s\n", rank, e.what());
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return status;
}
