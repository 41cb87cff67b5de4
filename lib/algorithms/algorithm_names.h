// The algorithms hetccl has, by name: the one list of their names, for the library
// (HETCCL_ALGO, plans, logs) and for tools that must not link the library's internals
// (hetccl-perf's --algo).  Pure data, in a library of its own (hetccl_algorithm_names).
#pragma once

#include <string>
#include <vector>

namespace hetccl {

enum class Algorithm {
  Ring,
  Hierarchical,
  Torus,
  HierarchicalHalving,
  HierarchicalTree,
  HierarchicalDoubleTree,
  Small,
  Native
};

const char* algorithmName(Algorithm algorithm);  // "ring", "hier", "torus", "hier-rhd", "hier-tree",
                                                 // "hier-dbtree", "small", "native"
const std::vector<Algorithm>& allAlgorithms();

}  // namespace hetccl
