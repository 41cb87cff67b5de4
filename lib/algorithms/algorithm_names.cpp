#include "algorithms/algorithm_names.h"

namespace hetccl {

const char* algorithmName(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::Ring: return "ring";
    case Algorithm::Hierarchical: return "hier";
    case Algorithm::Torus: return "torus";
    case Algorithm::HierarchicalHalving: return "hier-rhd";
    case Algorithm::HierarchicalTree: return "hier-tree";
    case Algorithm::HierarchicalDoubleTree: return "hier-dbtree";
    case Algorithm::Small: return "small";
    case Algorithm::Native: return "native";
  }
  return "?";
}

const std::vector<Algorithm>& allAlgorithms() {
  static const std::vector<Algorithm> all{Algorithm::Ring,
                                          Algorithm::Hierarchical,
                                          Algorithm::Torus,
                                          Algorithm::HierarchicalHalving,
                                          Algorithm::HierarchicalTree,
                                          Algorithm::HierarchicalDoubleTree,
                                          Algorithm::Small,
                                          Algorithm::Native};
  return all;
}

}  // namespace hetccl
