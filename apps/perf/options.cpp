#include "perf/options.h"

#include <algorithm>
#include <climits>

#include "algorithms/algorithm_names.h"
#include "base/quantities.h"
#include "common/byte_size_option.h"
#include "common/command_line.h"
#include "common/option_values.h"
#include "common/size_sweep.h"

namespace hetccl_perf {

namespace {

using hetccl_apps::Argument;
using hetccl_apps::Flag;

// hetccl's own flags have no short form (kLongOnlyKey), so no nccl-tests letter can clash.
enum LongOnlyKey : int { kBaseline = hetccl_apps::kLongOnlyKey, kAlgo, kOverlap, kModel, kAccumulate };

// --algo's help names every algorithm the library has (its names list), a few to a line.
std::string algorithmListHelp() {
  constexpr size_t kLineWidth = 56;
  std::string help = "algorithms to time, comma-separated:";
  size_t line = help.size();
  for (const std::string& name : knownAlgorithms()) {
    const bool wrap = line + 1 + name.size() > kLineWidth;
    help += wrap ? "\n" : " ";
    line = wrap ? 0 : line + 1;
    help += name;
    line += name.size();
  }
  return help + "; one\ncommunicator each, rows side by side (default: the\nlibrary's choice, HETCCL_ALGO or auto)";
}

const std::vector<Flag>& perfFlags() {
  static const std::vector<Flag> flags = [] {
    std::vector<Flag> all = hetccl_apps::sizeSweepFlags("8", "32M", "2");
    const std::vector<Flag> own{
        {'i', "stepbytes", "SIZE", "add SIZE each step instead of multiplying"},
        {'n', "iters", "N", "timed iterations (default 20)"},
        {'w', "warmup_iters", "N", "warm-up iterations (default 5)"},
        {'c', "check", "0|1", "check results bit-exactly (default 1)"},
        {'d', "datatype", "TYPE",
         "int8 uint8 int32 uint32 int64 uint64 half float double\nbfloat16, or all (default float)"},
        {'o', "op", "OP", "sum prod max min avg, or all (default sum)"},
        {'r', "root", "N", "root of broadcast and reduce (default 0)"},
        {'J', "json", "FILE", "also write the results as JSON to FILE"},
        {kBaseline, "baseline", "mpi", "time the matching MPI collective side by side"},
        {kAlgo, "algo", "LIST", algorithmListHelp()},
        {kOverlap, "overlap", nullptr,
         "time the collective alone, host work alone and both\n(call, work, synchronize): how much "
         "of each hides\nbehind the other, and how soon the call returns"},
        {kModel, "model", nullptr,
         "also print the cost model's predicted time of the plan\nthat ran (the tuner's figure) "
         "and measured/predicted"},
        {kAccumulate, "accumulate", "native|float32",
         "how half/bfloat16 sums and averages accumulate\n(config.accumulate, HETCCL_ACCUMULATE), and a "
         "column\nwith their largest error in ulps against the exact sum"},
        {'h', "help", nullptr, "this text"},
    };
    all.insert(all.end(), own.begin(), own.end());
    return all;
  }();
  return flags;
}

// Applies one flag's value to the options; returns an error message or "".
std::string applyFlag(const Argument& a, PerfOptions& o) {
  using hetccl_apps::invalidValue;
  using hetccl_apps::readByteSize;
  using hetccl_apps::readInteger;
  switch (a.key) {
    case 'b': return readByteSize(a, 1, &o.minBytes);
    case 'e': return readByteSize(a, 1, &o.maxBytes);
    case 'f': return readInteger(a, 2, INT_MAX, &o.stepFactor);
    case 'i': return readByteSize(a, 0, &o.stepBytes);
    case 'n': return readInteger(a, 1, INT_MAX, &o.iters);
    case 'w': return readInteger(a, 0, INT_MAX, &o.warmupIters);
    case 'c': return readInteger(a, 0, 1, &o.check);
    case 'r': return readInteger(a, 0, INT_MAX, &o.root);
    case 'J': return hetccl_apps::readText(a, &o.jsonPath);
    case 'd': {
      if (a.value == "all") {
        o.types = allDataTypes();
        return "";
      }
      DataType t;
      if (!parseDataType(a.value, &t)) return invalidValue(a, "a data type, or all");
      o.types = {t};
      return "";
    }
    case 'o': {
      if (a.value == "all") {
        o.ops = allRedOps();
        return "";
      }
      RedOp op;
      if (!parseRedOp(a.value, &op)) return invalidValue(a, "sum prod max min avg, or all");
      o.ops = {op};
      return "";
    }
    case kBaseline:
      if (a.value != "mpi") return invalidValue(a, "only mpi");
      o.mpiBaseline = true;
      return "";
    case kAlgo: {
      std::string error;
      if (!parseAlgorithmList(a.value, &o.algorithms, &error)) return error;
      return "";
    }
    case kOverlap: o.overlap = true; return "";
    case kModel: o.model = true; return "";
    case kAccumulate:
      if (a.value != "native" && a.value != "float32") return invalidValue(a, "native or float32");
      o.accumulate = a.value;
      return "";
  }
  return "unhandled option " + a.spelling;
}

ParseResult fail(std::string message) {
  ParseResult r;
  r.outcome = ParseOutcome::Error;
  r.error = std::move(message);
  return r;
}

}  // namespace

const std::vector<std::string>& knownAlgorithms() {
  // The library checks the name again when the communicator is created; checking here too
  // turns a typo into a usage message before any rank starts work.
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all{"auto"};  // the tuner's choice, as HETCCL_ALGO=auto
    for (hetccl::Algorithm algorithm : hetccl::allAlgorithms()) all.push_back(hetccl::algorithmName(algorithm));
    return all;
  }();
  return names;
}

bool parseAlgorithmList(const std::string& text, std::vector<std::string>* algorithms, std::string* error) {
  const auto& known = knownAlgorithms();
  std::vector<std::string> names;
  if (text.empty()) {
    *error = "empty algorithm list in --algo";
    return false;
  }
  for (const std::string& name : hetccl::splitText(text, ',')) {
    if (name.empty()) {
      *error = "empty algorithm name in --algo '" + text + "'";
      return false;
    }
    if (std::find(known.begin(), known.end(), name) == known.end()) {
      *error = "unknown algorithm '" + name + "' in --algo (one of:";
      for (const std::string& k : known) *error += " " + k;
      *error += ")";
      return false;
    }
    if (std::find(names.begin(), names.end(), name) != names.end()) {
      *error = "algorithm '" + name + "' listed twice in --algo";
      return false;
    }
    names.push_back(name);
  }
  *algorithms = std::move(names);
  return true;
}

ParseResult parseOptions(int argc, const char* const* argv) {
  std::vector<Argument> arguments;
  std::string error;
  if (!hetccl_apps::parseCommandLine(argc, argv, perfFlags(), &arguments, &error)) return fail(error);
  ParseResult result;
  PerfOptions& o = result.options;
  bool haveCollective = false;
  for (const Argument& a : arguments) {
    if (a.key == 'h') {
      result.outcome = ParseOutcome::Help;
      return result;
    }
    if (a.key == Argument::kOperand) {
      if (haveCollective) return fail("more than one collective given ('" + a.value + "')");
      if (!parseCollective(a.value, &o.collective)) return fail("unknown collective '" + a.value + "'");
      haveCollective = true;
      continue;
    }
    error = applyFlag(a, o);
    if (!error.empty()) return fail(error);
  }
  if (!haveCollective) return fail("no collective given");
  if (o.minBytes > o.maxBytes) return fail("-b is larger than -e");
  // The overlap table has no MPI columns: MPI's blocking collective has nothing to overlap.
  if (o.overlap && o.mpiBaseline) return fail("--overlap and --baseline cannot be combined");
  if (o.overlap && o.model) return fail("--overlap and --model cannot be combined");
  if (o.overlap && !o.accumulate.empty()) return fail("--overlap and --accumulate cannot be combined");
  result.outcome = ParseOutcome::Run;
  return result;
}

std::vector<size_t> sizeSweep(const PerfOptions& o) {
  return hetccl_apps::sweepSizes(o.minBytes, o.maxBytes, o.stepFactor, o.stepBytes);
}

std::string usageText(const std::string& program) {
  return "usage: " + program +
         " COLLECTIVE [flags]\n"
         "  COLLECTIVE: allreduce allgather reducescatter broadcast reduce alltoall sendrecv\n" +
         hetccl_apps::describeFlags(perfFlags()) +
         "  SIZE is the full buffer in bytes, as nccl-tests: for allgather, reducescatter and\n"
         "  alltoall it is count x nranks x element size, rounded down to whole elements.\n";
}

}  // namespace hetccl_perf
