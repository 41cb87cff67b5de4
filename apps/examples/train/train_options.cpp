#include "train_options.h"

#include <cstdint>
#include <vector>

#include "common/command_line.h"
#include "common/option_values.h"

namespace hetccl_train {

namespace {

using hetccl_apps::Argument;

enum Key : int {
  kSteps = hetccl_apps::kLongOnlyKey,
  kBatch,
  kLearningRate,
  kHidden,
  kSeed,
  kSplit,
  kVendor,
  kTolerance,
  kPrintEvery,
};

const std::vector<hetccl_apps::Flag>& trainFlags() {
  static const std::vector<hetccl_apps::Flag> flags{
      {kSteps, "steps", "N", "training steps (40)"},
      {kBatch, "batch", "N", "global batch: samples per step over all ranks (256)"},
      {kLearningRate, "lr", "X", "learning rate (0.1)"},
      {kHidden, "hidden", "N", "hidden units (32)"},
      {kSeed, "seed", "N", "seed of the data and the initial weights (1)"},
      {kSplit, "split", "SPEC",
       "even | proportional:W,W,... (per vendor or per rank) |\n"
       "VENDOR=W,VENDOR=W (e.g. nvidia=3,amd=1)   (even)"},
      {kVendor, "vendor", "NAME", "this rank's vendor (default: from HETCCL_EMULATE_VENDORS)"},
      {kTolerance, "tolerance", "X", "allowed relative loss difference from the reference (1e-5)"},
      {kPrintEvery, "print-every", "N", "print every N-th step (about 20 rows)"},
      {'h', "help", nullptr, "this text"},
  };
  return flags;
}

// Applies one flag to the options; returns "" or why it cannot.
std::string applyFlag(const Argument& a, TrainOptions* o) {
  using hetccl_apps::readInteger;
  switch (a.key) {
    case kSteps: return readInteger(a, 1, 1000000, &o->steps);
    // Up to 2^24 the batch is exact in float, so dividing by it is one rounding.
    case kBatch: return readInteger(a, 1, 1 << 24, &o->batch);
    case kLearningRate: return hetccl_apps::readPositiveReal(a, &o->learningRate);
    case kHidden: return readInteger(a, 1, 4096, &o->hidden);
    case kSeed: return readInteger(a, 0, INT64_MAX, &o->seed);
    case kSplit: return hetccl_apps::readText(a, &o->split);
    case kVendor: return hetccl_apps::readText(a, &o->vendor);
    case kTolerance: return hetccl_apps::readPositiveReal(a, &o->tolerance);
    case kPrintEvery: return readInteger(a, 1, 1000000, &o->printEvery);
  }
  return "unhandled option " + a.spelling;
}

}  // namespace

const char* trainUsage() {
  static const std::string usage =
      "usage: hetccl-train [options]   (run under mpirun; rank 0 prints)\n" + hetccl_apps::describeFlags(trainFlags());
  return usage.c_str();
}

std::string parseTrainOptions(int argc, char** argv, TrainOptions* o) {
  std::vector<Argument> arguments;
  std::string error;
  if (!hetccl_apps::parseCommandLine(argc, argv, trainFlags(), &arguments, &error)) return error;
  for (const Argument& a : arguments) {
    if (a.key == 'h') {
      o->help = true;
      continue;
    }
    if (a.key == Argument::kOperand) return "unexpected argument '" + a.value + "'";
    error = applyFlag(a, o);
    if (!error.empty()) return error;
  }
  return "";
}

}  // namespace hetccl_train
