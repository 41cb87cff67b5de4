// hetccl-sim's output: a commented header (the cluster and the cost model's effective
// parameters) and one row per size, as a table or as JSON.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "sim/cluster_description.h"
#include "sim/sim_options.h"
#include "sim/sweep.h"

namespace hetccl_sim {

struct ReportContext {
  const SimOptions* options = nullptr;
  const ClusterDescription* cluster = nullptr;
  const hetccl::TopologyView* topology = nullptr;
  hetccl::IslandScope scope = hetccl::IslandScope::Node;
  hetccl::CostParameters costs;
  hetccl::TunerSettings tuning;  // the library's settings with the command line's overrides
};

void printTable(std::ostream& out, const ReportContext& context, const std::vector<SizePrediction>& rows);
// --explain: per size, the pick's prediction taken apart and the bound's terms (comment lines).
void printExplanation(std::ostream& out, const std::vector<SizePrediction>& rows);
void printJson(std::ostream& out, const ReportContext& context, const std::vector<SizePrediction>& rows);

}  // namespace hetccl_sim
