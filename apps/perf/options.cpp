#include "perf/options.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <limits>

namespace hetccl_perf {

namespace {

// Parses a whole decimal integer into [lo, hi]; anything else (junk, sign, overflow) fails.
bool parseInteger(const std::string& text, long long lo, long long hi, long long* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long v = std::strtoll(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0') return false;
  if (v < lo || v > hi) return false;
  *out = v;
  return true;
}

// One flag of the table below: its key (the short spelling, where it has one), its long
// spelling and whether it takes a value.  hetccl's own flags have no short form, so that no
// future nccl-tests letter can clash with them.
struct FlagSpec {
  char shortName;
  const char* longName;
  bool takesValue;
  bool hasShortForm;
};

constexpr FlagSpec kFlags[] = {
    {'b', "minbytes", true, true},  {'e', "maxbytes", true, true}, {'f', "stepfactor", true, true},
    {'i', "stepbytes", true, true}, {'n', "iters", true, true},    {'w', "warmup_iters", true, true},
    {'c', "check", true, true},     {'d', "datatype", true, true}, {'o', "op", true, true},
    {'r', "root", true, true},      {'J', "json", true, true},     {'B', "baseline", true, false},
    {'A', "algo", true, false},     {'h', "help", false, true},
};

const FlagSpec* findShort(char c) {
  for (const auto& f : kFlags)
    if (f.shortName == c && f.hasShortForm) return &f;
  return nullptr;
}

const FlagSpec* findLong(const std::string& name) {
  for (const auto& f : kFlags)
    if (name == f.longName) return &f;
  return nullptr;
}

// Applies one flag's value to the options; returns an error message or "".
std::string applyFlag(char flag, const std::string& value, PerfOptions& o) {
  long long n = 0;
  switch (flag) {
    case 'b':
      if (!parseByteSize(value, &o.minBytes)) return "invalid size for -b: '" + value + "'";
      return "";
    case 'e':
      if (!parseByteSize(value, &o.maxBytes)) return "invalid size for -e: '" + value + "'";
      return "";
    case 'f':
      if (!parseInteger(value, 2, INT_MAX, &n))
        return "invalid step factor for -f: '" + value + "' (an integer >= 2)";
      o.stepFactor = static_cast<size_t>(n);
      return "";
    case 'i':
      if (!parseByteSize(value, &o.stepBytes)) return "invalid size for -i: '" + value + "'";
      return "";
    case 'n':
      if (!parseInteger(value, 1, INT_MAX, &n))
        return "invalid iteration count for -n: '" + value + "' (an integer >= 1)";
      o.iters = static_cast<int>(n);
      return "";
    case 'w':
      if (!parseInteger(value, 0, INT_MAX, &n))
        return "invalid warm-up count for -w: '" + value + "' (an integer >= 0)";
      o.warmupIters = static_cast<int>(n);
      return "";
    case 'c':
      if (!parseInteger(value, 0, 1, &n)) return "invalid value for -c: '" + value + "' (0 or 1)";
      o.check = n == 1;
      return "";
    case 'd': {
      if (value == "all") { o.types = allDataTypes(); return ""; }
      DataType t;
      if (!parseDataType(value, &t)) return "unknown data type for -d: '" + value + "'";
      o.types = {t};
      return "";
    }
    case 'o': {
      if (value == "all") { o.ops = allRedOps(); return ""; }
      RedOp op;
      if (!parseRedOp(value, &op)) return "unknown reduction op for -o: '" + value + "'";
      o.ops = {op};
      return "";
    }
    case 'r':
      if (!parseInteger(value, 0, INT_MAX, &n))
        return "invalid root for -r: '" + value + "' (an integer >= 0)";
      o.root = static_cast<int>(n);
      return "";
    case 'J':
      if (value.empty()) return "empty file name for -J";
      o.jsonPath = value;
      return "";
    case 'B':
      if (value != "mpi") return "unknown baseline '" + value + "' (only 'mpi')";
      o.mpiBaseline = true;
      return "";
    case 'A': {
      std::string error;
      if (!parseAlgorithmList(value, &o.algorithms, &error)) return error;
      return "";
    }
  }
  return std::string("unhandled flag -") + flag;
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
  static const std::vector<std::string> names{"auto", "ring", "hier", "torus", "small", "native"};
  return names;
}

bool parseAlgorithmList(const std::string& text, std::vector<std::string>* algorithms,
                        std::string* error) {
  std::vector<std::string> names;
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string name =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const auto& known = knownAlgorithms();
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
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  *algorithms = std::move(names);
  return true;
}

ParseResult parseOptions(int argc, const char* const* argv) {
  ParseResult result;
  PerfOptions& o = result.options;
  bool haveCollective = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    const FlagSpec* spec = nullptr;
    std::string value;
    bool valueAttached = false;
    if (arg.size() > 2 && arg[0] == '-' && arg[1] == '-') {
      std::string name = arg.substr(2);
      size_t eq = name.find('=');
      if (eq != std::string::npos) {
        value = name.substr(eq + 1);
        name = name.substr(0, eq);
        valueAttached = true;
      }
      spec = findLong(name);
      if (!spec) return fail("unknown option '" + arg + "'");
      if (!spec->takesValue && valueAttached)
        return fail("option '--" + name + "' takes no value");
    } else if (arg.size() >= 2 && arg[0] == '-') {
      spec = findShort(arg[1]);
      if (!spec) return fail("unknown option '" + arg + "'");
      if (arg.size() > 2) {
        if (!spec->takesValue) return fail("unknown option '" + arg + "'");
        value = arg.substr(2);  // "-b8", as getopt allows
        valueAttached = true;
      }
    } else {
      Collective c;
      if (haveCollective) return fail("more than one collective given ('" + arg + "')");
      if (!parseCollective(arg, &c)) return fail("unknown collective '" + arg + "'");
      o.collective = c;
      haveCollective = true;
      continue;
    }
    if (spec->shortName == 'h') {
      result.outcome = ParseOutcome::Help;
      return result;
    }
    if (!valueAttached) {
      if (i + 1 >= argc) return fail("option '" + arg + "' needs a value");
      value = argv[++i];
    }
    std::string error = applyFlag(spec->shortName, value, o);
    if (!error.empty()) return fail(error);
  }
  if (!haveCollective) return fail("no collective given");
  if (o.minBytes == 0) return fail("-b must be at least 1 byte");
  if (o.minBytes > o.maxBytes) return fail("-b is larger than -e");
  result.outcome = ParseOutcome::Run;
  return result;
}

std::vector<size_t> sizeSweep(const PerfOptions& o) {
  std::vector<size_t> sizes;
  size_t size = o.minBytes;
  const size_t kMax = std::numeric_limits<size_t>::max();
  while (size <= o.maxBytes) {
    sizes.push_back(size);
    // Stop before the next step would wrap around instead of looping forever.
    if (o.stepBytes > 0) {
      if (size > kMax - o.stepBytes) break;
      size += o.stepBytes;
    } else {
      if (size > kMax / o.stepFactor) break;
      size *= o.stepFactor;
    }
  }
  return sizes;
}

std::string usageText(const std::string& program) {
  return "usage: " + program + " COLLECTIVE [flags]\n"
         "  COLLECTIVE: allreduce allgather reducescatter broadcast reduce alltoall sendrecv\n"
         "  -b, --minbytes SIZE      smallest size in bytes, K/M/G suffixes (default 8)\n"
         "  -e, --maxbytes SIZE      largest size in bytes (default 32M)\n"
         "  -f, --stepfactor N       multiply the size by N each step (default 2)\n"
         "  -i, --stepbytes SIZE     add SIZE each step instead of multiplying\n"
         "  -n, --iters N            timed iterations (default 20)\n"
         "  -w, --warmup_iters N     warm-up iterations (default 5)\n"
         "  -c, --check 0|1          check results bit-exactly (default 1)\n"
         "  -d, --datatype TYPE      int8 uint8 int32 uint32 int64 uint64 half float double\n"
         "                           bfloat16, or all (default float)\n"
         "  -o, --op OP              sum prod max min avg, or all (default sum)\n"
         "  -r, --root N             root of broadcast and reduce (default 0)\n"
         "  -J, --json FILE          also write the results as JSON to FILE\n"
         "      --baseline mpi       time the matching MPI collective side by side\n"
         "      --algo LIST          algorithms to time, comma-separated: auto ring hier torus\n"
         "                           small native; one communicator each, rows side by side\n"
         "                           (default: the library's choice, HETCCL_ALGO or auto)\n"
         "  -h, --help               this text\n"
         "  SIZE is the full buffer in bytes, as nccl-tests: for allgather, reducescatter and\n"
         "  alltoall it is count x nranks x element size, rounded down to whole elements.\n";
}

}  // namespace hetccl_perf
