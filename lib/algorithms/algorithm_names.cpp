#include "algorithms/algorithm_names.h"

namespace hetccl {

namespace {

struct AlgorithmName {
  Algorithm id;
  const char* name;
};

// Only the id and the name of each row: the rest names code this library does not link.
constexpr AlgorithmName kNames[] = {
#define HETCCL_ALGORITHM(id, name, ...) {Algorithm::id, name},
#include "algorithms/algorithm_list.h"
#undef HETCCL_ALGORITHM
};

}  // namespace

const char* algorithmName(Algorithm algorithm) {
  for (const AlgorithmName& row : kNames)
    if (row.id == algorithm) return row.name;
  return "?";
}

const std::vector<Algorithm>& allAlgorithms() {
  static const std::vector<Algorithm> all = [] {
    std::vector<Algorithm> ids;
    for (const AlgorithmName& row : kNames) ids.push_back(row.id);
    return ids;
  }();
  return all;
}

}  // namespace hetccl
