#include "accuracy/accuracy_options.h"

#include "base/quantities.h"
#include "common/command_line.h"
#include "common/option_values.h"
#include "perf/options.h"

namespace hetccl_accuracy {

namespace {

using hetccl_apps::Argument;

constexpr int kRanks = hetccl_apps::kLongOnlyKey;
constexpr int kAlgo = hetccl_apps::kLongOnlyKey + 1;
constexpr int kNodeRanks = hetccl_apps::kLongOnlyKey + 2;
constexpr int kMostRanks = 4096;

const std::vector<hetccl_apps::Flag>& accuracyFlags() {
  static const std::vector<hetccl_apps::Flag> flags{
      {kRanks, "ranks", "LIST", "rank counts, comma-separated, each even (default 8,64,512)"},
      {'c', "collective", "COLLECTIVE", "allreduce (default) or reducescatter"},
      {'d', "datatype", "TYPE", "bfloat16 (default) or half"},
      {'o', "op", "OP", "sum (default) or avg"},
      {'n', "count", "N", "elements: the all-reduce's buffer, each rank's reduce-scatter\nblock (default 4096)"},
      {kAlgo, "algo", "LIST",
       "algorithms, comma-separated (default: ring,hier,torus,hier-rhd,\nhier-tree,hier-dbtree,small,auto)"},
      {kNodeRanks, "node-ranks", "K", "ranks per emulated node (default 8)"},
      {'h', "help", nullptr, "this text"},
  };
  return flags;
}

std::string readRankCounts(const Argument& a, std::vector<int>* counts) {
  counts->clear();
  for (const std::string& item : hetccl::splitText(a.value, ',')) {
    long long n = 0;
    if (!hetccl::parseInteger(item, 2, kMostRanks, &n) || n % 2 != 0)
      return hetccl_apps::invalidValue(a,
                                       "even integers from 2 to " + std::to_string(kMostRanks) + ", comma-separated");
    counts->push_back(static_cast<int>(n));
  }
  return counts->empty() ? hetccl_apps::invalidValue(a, "at least one rank count") : "";
}

std::string applyFlag(const Argument& a, AccuracyOptions& o) {
  switch (a.key) {
    case kRanks: return readRankCounts(a, &o.rankCounts);
    case 'c':
      if (!hetccl_perf::parseCollective(a.value, &o.collective) ||
          (o.collective != hetccl_perf::Collective::AllReduce &&
           o.collective != hetccl_perf::Collective::ReduceScatter))
        return hetccl_apps::invalidValue(a, "allreduce or reducescatter");
      return "";
    case 'd':
      if (!hetccl_perf::parseDataType(a.value, &o.type) ||
          (o.type != hetccl_perf::DataType::Bfloat16 && o.type != hetccl_perf::DataType::Float16))
        return hetccl_apps::invalidValue(a, "bfloat16 or half");
      return "";
    case 'o':
      if (!hetccl_perf::parseRedOp(a.value, &o.op) ||
          (o.op != hetccl_perf::RedOp::Sum && o.op != hetccl_perf::RedOp::Avg))
        return hetccl_apps::invalidValue(a, "sum or avg");
      return "";
    case 'n': return hetccl_apps::readInteger(a, 1, 1 << 24, &o.count);
    case kAlgo: {
      std::string error;  // hetccl-perf's --algo grammar: known names, none empty or twice
      return hetccl_perf::parseAlgorithmList(a.value, &o.algorithms, &error) ? "" : error;
    }
    case kNodeRanks: return hetccl_apps::readInteger(a, 1, kMostRanks, &o.nodeRanks);
    case 'h': o.help = true; return "";
    default: return "unexpected operand '" + a.value + "'";
  }
}

}  // namespace

bool parseAccuracyOptions(int argc, const char* const* argv, AccuracyOptions* options, std::string* error) {
  std::vector<Argument> arguments;
  if (!hetccl_apps::parseCommandLine(argc, argv, accuracyFlags(), &arguments, error)) return false;
  for (const Argument& a : arguments) {
    *error = applyFlag(a, *options);
    if (!error->empty()) return false;
  }
  return true;
}

std::string accuracyUsage() {
  return "usage: hetccl-accuracy [flags]\n"
         "  The largest rounding error of a half/bfloat16 sum or average, native and accumulated in\n"
         "  float32 (HETCCL_ACCUMULATE), per rank count and algorithm: the ranks are threads of this\n"
         "  process, each with a whole communicator, half of them emulated NVIDIA and half AMD, in\n"
         "  emulated nodes of K.  Inputs of 8 significant bits, so the float64 reference is exact.\n" +
         hetccl_apps::describeFlags(accuracyFlags());
}

}  // namespace hetccl_accuracy
