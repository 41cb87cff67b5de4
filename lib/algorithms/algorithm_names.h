// The algorithms hetccl has, by name: the ids and names of algorithm_list.h's rows, for the
// library (HETCCL_ALGO, plans, logs) and for tools that must not link the library's internals
// (hetccl-perf's --algo, the settings fuzzer).  Pure data, in a library of its own
// (hetccl_algorithm_names); the rest of each row is in algorithm.h.
#pragma once

#include <string>
#include <vector>

namespace hetccl {

enum class Algorithm {
#define HETCCL_ALGORITHM(id, ...) id,
#include "algorithms/algorithm_list.h"
#undef HETCCL_ALGORITHM
};

const char* algorithmName(Algorithm algorithm);  // "ring", "hier", ...: the row's name
const std::vector<Algorithm>& allAlgorithms();   // in the rows' order

}  // namespace hetccl
