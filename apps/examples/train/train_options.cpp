#include "train_options.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iterator>

namespace hetccl_train {

namespace {

bool toInteger(const std::string& text, long long low, long long high, long long* value) {
  char* end = nullptr;
  errno = 0;
  *value = std::strtoll(text.c_str(), &end, 10);
  return !text.empty() && *end == '\0' && errno == 0 && *value >= low && *value <= high;
}

bool toPositive(const std::string& text, double* value) {
  char* end = nullptr;
  *value = std::strtod(text.c_str(), &end);
  return !text.empty() && *end == '\0' && std::isfinite(*value) && *value > 0;
}

}  // namespace

const char* trainUsage() {
  return "usage: hetccl-train [options]   (run under mpirun; rank 0 prints)\n"
         "  --steps N          training steps (40)\n"
         "  --batch N          global batch: samples per step over all ranks (256)\n"
         "  --lr X             learning rate (0.1)\n"
         "  --hidden N         hidden units (32)\n"
         "  --seed N           seed of the data and the initial weights (1)\n"
         "  --split SPEC       even | proportional:W,W,... (per vendor or per rank) |\n"
         "                     VENDOR=W,VENDOR=W (e.g. nvidia=3,amd=1)   (even)\n"
         "  --vendor NAME      this rank's vendor (default: from HETCCL_EMULATE_VENDORS)\n"
         "  --tolerance X      allowed relative loss difference from the reference (1e-5)\n"
         "  --print-every N    print every N-th step (about 20 rows)\n";
}

std::string parseTrainOptions(int argc, char** argv, TrainOptions* o) {
  static const char* const kFlags[] = {"--steps", "--batch",  "--lr",        "--hidden",     "--seed",
                                       "--split", "--vendor", "--tolerance", "--print-every"};
  for (int i = 1; i < argc; ++i) {
    std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      o->help = true;
      continue;
    }
    // Both "--flag value" and "--flag=value".
    std::string value;
    bool hasValue = false;
    if (const size_t eq = flag.find('='); flag.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      value = flag.substr(eq + 1);
      flag = flag.substr(0, eq);
      hasValue = true;
    }
    if (std::find(std::begin(kFlags), std::end(kFlags), flag) == std::end(kFlags))
      return "unknown argument '" + flag + "'";
    if (!hasValue) {
      if (i + 1 >= argc) return "missing value after '" + flag + "'";
      value = argv[++i];
    }
    long long n = 0;
    double x = 0;
    const std::string bad = "bad value '" + value + "' for " + flag;
    if (flag == "--steps") {
      if (!toInteger(value, 1, 1000000, &n)) return bad;
      o->steps = static_cast<int>(n);
    } else if (flag == "--batch") {
      // Up to 2^24 the batch is exact in float, so dividing by it is one rounding.
      if (!toInteger(value, 1, 1 << 24, &n)) return bad;
      o->batch = static_cast<uint64_t>(n);
    } else if (flag == "--lr") {
      if (!toPositive(value, &x)) return bad;
      o->learningRate = static_cast<float>(x);
    } else if (flag == "--hidden") {
      if (!toInteger(value, 1, 4096, &n)) return bad;
      o->hidden = static_cast<int>(n);
    } else if (flag == "--seed") {
      if (!toInteger(value, 0, INT64_MAX, &n)) return bad;
      o->seed = static_cast<uint64_t>(n);
    } else if (flag == "--split") {
      if (value.empty()) return bad;
      o->split = value;
    } else if (flag == "--vendor") {
      if (value.empty()) return bad;
      o->vendor = value;
    } else if (flag == "--tolerance") {
      if (!toPositive(value, &x)) return bad;
      o->tolerance = x;
    } else {  // --print-every
      if (!toInteger(value, 1, 1000000, &n)) return bad;
      o->printEvery = static_cast<int>(n);
    }
  }
  return "";
}

}  // namespace hetccl_train
