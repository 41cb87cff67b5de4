// hetccl-sim: a cluster description in; the cost model's predicted time and bus bandwidth of
// every algorithm, and the tuner's pick, per size out.  No MPI, no GPU: it answers "what if
// 512 H100 + 256 MI300X" on a laptop.
#include <fstream>
#include <iostream>

#include "base/settings_reader.h"
#include "core/settings.h"
#include "sim/cluster_description.h"
#include "sim/report.h"
#include "sim/sim_options.h"
#include "sim/smpi_platform.h"
#include "sim/sweep.h"

namespace {

constexpr int kBadInput = 2;

int writeSmpiPlatform(const std::string& prefix, const hetccl_sim::ClusterDescription& cluster,
                      hetccl::IslandScope scope) {
  const hetccl_sim::SmpiPlatform platform = hetccl_sim::smpiPlatformOf(cluster, scope);
  const std::pair<std::string, const std::string*> files[] = {{prefix + ".xml", &platform.xml},
                                                              {prefix + ".hosts", &platform.hostfile},
                                                              {prefix + ".vendors", &platform.vendors}};
  for (const auto& [path, text] : files) {
    std::ofstream out(path);
    out << *text;
    if (!out.flush()) {
      std::cerr << "hetccl-sim: cannot write " << path << "\n";
      return kBadInput;
    }
  }
  std::cout << "hetccl-sim: wrote " << prefix << ".xml, .hosts, .vendors (" << cluster.rankCount() << " ranks)\n";
  return 0;
}

int run(int argc, const char* const* argv) {
  using namespace hetccl_sim;
  SimOptions options;
  std::string error;
  if (!parseSimOptions(argc, argv, &options, &error)) {
    std::cerr << "hetccl-sim: " << error << "\n" << simUsage(argv[0]);
    return kBadInput;
  }
  if (options.help) {
    std::cout << simUsage(argv[0]);
    return 0;
  }
  std::ifstream file(options.clusterPath);
  if (!file) {
    std::cerr << "hetccl-sim: cannot open " << options.clusterPath << "\n";
    return kBadInput;
  }
  ClusterDescription cluster;
  DescriptionError descriptionError;
  if (!parseClusterDescription(file, &cluster, &descriptionError)) {
    std::cerr << options.clusterPath << ": " << descriptionError.describe() << "\n";
    return kBadInput;
  }
  // What the library's tuner would be told (HETCCL_ALGO, ...), then the command line's overrides.
  hetccl::Settings settings;
  if (hetccl::Status status = hetccl::loadSettings(nullptr, &settings); !status.isOk()) {
    std::cerr << "hetccl-sim: " << status.message() << "\n";
    return kBadInput;
  }
  hetccl::TunerSettings tuning = hetccl::tunerSettings(settings);
  if (options.chunkBytes > 0) {
    tuning.chunkBytes = options.chunkBytes;
    tuning.chunkBytesSet = true;
  }
  if (options.pipelineDepth > 0) tuning.pipelineDepth = options.pipelineDepth;

  // Islands as the library would form them: HETCCL_ISLAND_SCOPE, or --island-scope.
  hetccl::IslandScope scope = hetccl::IslandScope::Node;
  if (hetccl::Status status = hetccl::readEnum(hetccl::SettingId::IslandScope, &scope); !status.isOk()) {
    std::cerr << "hetccl-sim: " << status.message() << "\n";
    return kBadInput;
  }
  if (options.islandScope) scope = *options.islandScope;

  if (!options.smpiPlatformPrefix.empty()) return writeSmpiPlatform(options.smpiPlatformPrefix, cluster, scope);

  ReportContext context;
  const hetccl::TopologyView topology = topologyOf(cluster, scope);
  const std::vector<FormedIsland> islands = formedIslands(cluster, scope);
  context.options = &options;
  context.cluster = &cluster;
  context.topology = &topology;
  context.scope = scope;
  context.costs = costParametersOf(cluster, scope);
  context.tuning = tuning;
  // A forced algorithm the islands cannot run fails communicator creation in the library.
  if (hetccl::Status status = hetccl::Tuner(topology, context.costs, tuning).validate(); !status.isOk()) {
    std::cerr << "hetccl-sim: " << status.message() << "\n";
    return kBadInput;
  }
  std::vector<SizePrediction> rows = predictSweep(topology, islands, context.costs, tuning, options.collective,
                                                  options.elementSize, sizeSweep(options), options.accumulate);
  if (options.json)
    printJson(std::cout, context, rows);
  else
    printTable(std::cout, context, rows);
  return 0;
}

}  // namespace

int main(int argc, char** argv) { return run(argc, argv); }
