#include "sim/sim_options.h"

#include "common/byte_size_option.h"
#include "common/command_line.h"
#include "common/option_values.h"
#include "common/size_sweep.h"
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

using hetccl_apps::Argument;

enum LongOnlyKey : int {
  kChunk = hetccl_apps::kLongOnlyKey,
  kDepth,
  kJson,
  kIslandScope,
  kExplain,
  kAccumulate,
  kSmpiPlatform
};

const std::vector<hetccl_apps::Flag>& simFlags() {
  static const std::vector<hetccl_apps::Flag> flags = [] {
    std::vector<hetccl_apps::Flag> all = hetccl_apps::sizeSweepFlags("1K", "1G", "4");
    const std::vector<hetccl_apps::Flag> own{
        {'c', "collective", "COLLECTIVE",
         "allreduce (default), allgather, reducescatter, broadcast, reduce,\nalltoall"},
        {'t', "datatype", "TYPE", "element type, as hetccl-perf's -d (default float)"},
        {kChunk, "chunk", "BYTES", "fix the chunk size (default: the tuner chooses)"},
        {kDepth, "depth", "D", "pipeline depth (default: the library's, 4)"},
        {kIslandScope, "island-scope", "SCOPE",
         "node: an island per vendor and node, as the library forms them\n(default, or HETCCL_ISLAND_SCOPE); job: per "
         "vendor"},
        {kExplain, "explain", nullptr, "per size, the pick's time by phase and the bound's terms"},
        {kAccumulate, "accumulate", "native|float32",
         "half/bfloat16 all-reduce and reduce-scatter: float32 prices\nfp32 accumulation (HETCCL_ACCUMULATE; "
         "--explain then shows\nits float32 phase)"},
        {kJson, "json", nullptr, "JSON instead of the table"},
        {kSmpiPlatform, "smpi-platform", "PREFIX",
         "write the cluster as a SimGrid platform instead: PREFIX.xml,\nPREFIX.hosts (hostfile, rank order), "
         "PREFIX.vendors\n(HETCCL_EMULATE_VENDORS) for smpirun (docs/SIM.md)"},
        {'h', "help", nullptr, "this text"},
    };
    all.insert(all.end(), own.begin(), own.end());
    return all;
  }();
  return flags;
}

// Applies one flag to the options; returns "" or why it cannot.
std::string applyFlag(const Argument& a, SimOptions& o) {
  switch (a.key) {
    case 'b': return hetccl_apps::readByteSize(a, 1, &o.minBytes);
    case 'e': return hetccl_apps::readByteSize(a, 1, &o.maxBytes);
    case 'f': return hetccl_apps::readInteger(a, 2, 1 << 20, &o.stepFactor);
    case 'c':
      if (!parseCollective(a.value, &o.collective))
        return hetccl_apps::invalidValue(a, "allreduce, allgather, reducescatter, broadcast, reduce or alltoall");
      return "";
    case 't': {
      hetccl_perf::DataType type;
      if (!hetccl_perf::parseDataType(a.value, &type))
        return hetccl_apps::invalidValue(a, "a type hetccl-perf's -d takes");
      o.typeName = hetccl_perf::dataTypeName(type);
      o.elementSize = hetccl::elementSize(type);
      return "";
    }
    case kChunk: return hetccl_apps::readByteSize(a, 1, &o.chunkBytes);
    case kDepth: return hetccl_apps::readInteger(a, 1, 64, &o.pipelineDepth);
    case kJson: o.json = true; return "";
    case kSmpiPlatform:
      if (a.value.empty()) return hetccl_apps::invalidValue(a, "a file name prefix");
      o.smpiPlatformPrefix = a.value;
      return "";
    case kExplain: o.explain = true; return "";
    case kAccumulate:
      if (a.value != "native" && a.value != "float32") return hetccl_apps::invalidValue(a, "native or float32");
      o.accumulate = a.value == "float32";
      return "";
    case kIslandScope:
      if (a.value == "node")
        o.islandScope = hetccl::IslandScope::Node;
      else if (a.value == "job")
        o.islandScope = hetccl::IslandScope::Job;
      else
        return hetccl_apps::invalidValue(a, "node or job");
      return "";
  }
  return "unhandled option " + a.spelling;
}

}  // namespace

bool parseSimOptions(int argc, const char* const* argv, SimOptions* options, std::string* error) {
  std::vector<Argument> arguments;
  if (!hetccl_apps::parseCommandLine(argc, argv, simFlags(), &arguments, error)) return false;
  SimOptions o;
  auto fail = [&](const std::string& message) {
    *error = message;
    return false;
  };
  for (const Argument& a : arguments) {
    if (a.key == 'h') {
      o.help = true;
      *options = o;
      return true;
    }
    if (a.key == Argument::kOperand) {
      if (!o.clusterPath.empty())
        return fail("more than one cluster file ('" + o.clusterPath + "', '" + a.value + "')");
      o.clusterPath = a.value;
      continue;
    }
    if (std::string why = applyFlag(a, o); !why.empty()) return fail(why);
  }
  if (o.clusterPath.empty()) return fail("no cluster file given");
  if (o.minBytes > o.maxBytes) return fail("-b is larger than -e");
  if (o.accumulate && (o.elementSize != 2 || (o.collective != hetccl::Collective::AllReduce &&
                                              o.collective != hetccl::Collective::ReduceScatter)))
    return fail("--accumulate float32 prices half and bfloat16 all-reduce and reduce-scatter only (-t half|bfloat16)");
  *options = o;
  return true;
}

std::string simUsage(const std::string& program) {
  return "usage: " + program +
         " FILE [-b MIN] [-e MAX] [-f FACTOR] [-c COLLECTIVE] [-t TYPE] [--chunk BYTES] [--depth D]\n"
         "       [--island-scope node|job] [--accumulate native|float32] [--explain] [--json]\n"
         "       [--smpi-platform PREFIX]\n"
         "  FILE is a cluster description (see docs/SIM.md)\n" +
         hetccl_apps::describeFlags(simFlags()) +
         "HETCCL_ALGO, HETCCL_CHUNK_BYTES, HETCCL_PIPELINE_DEPTH, HETCCL_ISLAND_SLICES and HETCCL_ISLAND_SCOPE act as "
         "in\n"
         "the library.\n";
}

std::vector<size_t> sizeSweep(const SimOptions& options) {
  return hetccl_apps::sweepSizes(options.minBytes, options.maxBytes, options.stepFactor);
}

}  // namespace hetccl_sim
