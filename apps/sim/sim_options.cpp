#include "sim/sim_options.h"

#include <cerrno>
#include <cstdlib>

#include "base/byte_size.h"
#include "core/settings.h"
#include "perf/perf_types.h"

namespace hetccl_sim {

namespace {

// The collectives the tuner chooses algorithms for (send/recv has no choice to make).
constexpr hetccl::Collective kSimulatedCollectives[] = {
    hetccl::Collective::AllReduce, hetccl::Collective::AllGather, hetccl::Collective::ReduceScatter,
    hetccl::Collective::Broadcast, hetccl::Collective::Reduce,    hetccl::Collective::AlltoAll};

bool parseCollective(const std::string& name, hetccl::Collective* collective) {
  for (hetccl::Collective candidate : kSimulatedCollectives)
    if (name == hetccl::collectiveName(candidate)) {
      *collective = candidate;
      return true;
    }
  return false;
}

bool parseInteger(const std::string& text, long lo, long hi, long* value) {
  char* end = nullptr;
  errno = 0;
  long number = std::strtol(text.c_str(), &end, 10);
  if (text.empty() || *end != '\0' || errno != 0 || number < lo || number > hi) return false;
  *value = number;
  return true;
}

}  // namespace

bool parseSimOptions(int argc, const char* const* argv, SimOptions* options, std::string* error) {
  SimOptions o;
  auto fail = [&](const std::string& message) {
    *error = message;
    return false;
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "-h" || arg == "--help") {
      o.help = true;
      continue;
    }
    if (arg == "--json") {
      o.json = true;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-') {
      if (i + 1 >= argc) return fail(arg + " needs a value");
      const std::string value = argv[++i];
      long number = 0;
      if (arg == "-b") {
        if (!hetccl::parseByteSize(value.c_str(), &o.minBytes) || o.minBytes == 0)
          return fail("bad size for -b: '" + value + "'");
      } else if (arg == "-e") {
        if (!hetccl::parseByteSize(value.c_str(), &o.maxBytes) || o.maxBytes == 0)
          return fail("bad size for -e: '" + value + "'");
      } else if (arg == "-f") {
        if (!parseInteger(value, 2, 1 << 20, &number))
          return fail("bad factor for -f: '" + value + "' (an integer >= 2)");
        o.stepFactor = static_cast<size_t>(number);
      } else if (arg == "-c") {
        if (!parseCollective(value, &o.collective))
          return fail("unknown collective '" + value +
                      "' (allreduce, allgather, reducescatter, broadcast, reduce, alltoall)");
      } else if (arg == "-t") {
        hetccl_perf::DataType type;
        if (!hetccl_perf::parseDataType(value, &type)) return fail("unknown type '" + value + "'");
        o.typeName = hetccl_perf::dataTypeName(type);
        o.elementSize = hetccl_perf::dataTypeSize(type);
      } else if (arg == "--chunk") {
        if (!hetccl::parseByteSize(value.c_str(), &o.chunkBytes) || o.chunkBytes == 0)
          return fail("bad size for --chunk: '" + value + "'");
      } else if (arg == "--depth") {
        if (!parseInteger(value, 1, 64, &number)) return fail("bad depth for --depth: '" + value + "' (1..64)");
        o.pipelineDepth = static_cast<int>(number);
      } else {
        return fail("unknown option '" + arg + "'");
      }
      continue;
    }
    if (!o.clusterPath.empty()) return fail("more than one cluster file ('" + o.clusterPath + "', '" + arg + "')");
    o.clusterPath = arg;
  }
  if (o.help) {
    *options = o;
    return true;
  }
  if (o.clusterPath.empty()) return fail("no cluster file given");
  if (o.minBytes > o.maxBytes) return fail("-b is larger than -e");
  *options = o;
  return true;
}

std::string simUsage(const std::string& program) {
  return "usage: " + program +
         " FILE [-b MIN] [-e MAX] [-f FACTOR] [-c COLLECTIVE] [-t TYPE] [--chunk BYTES] [--depth D] [--json]\n"
         "  FILE           cluster description (see docs/SIM.md)\n"
         "  -b, -e, -f     size sweep: MIN to MAX bytes by FACTOR (default 1K 1G 4)\n"
         "  -c COLLECTIVE  allreduce (default), allgather, reducescatter, broadcast, reduce, alltoall\n"
         "  -t TYPE        element type, as hetccl-perf's -d (default float)\n"
         "  --chunk BYTES  fix the chunk size (default: the tuner chooses)\n"
         "  --depth D      pipeline depth (default: the library's, 4)\n"
         "  --json         JSON instead of the table\n"
         "HETCCL_ALGO, HETCCL_CHUNK_BYTES and HETCCL_PIPELINE_DEPTH act as in the library.\n";
}

std::vector<size_t> sizeSweep(const SimOptions& options) {
  std::vector<size_t> sizes;
  for (size_t size = options.minBytes; size <= options.maxBytes; size *= options.stepFactor) {
    sizes.push_back(size);
    if (size > options.maxBytes / options.stepFactor) break;  // the next one would pass max (or overflow)
  }
  return sizes;
}

}  // namespace hetccl_sim
