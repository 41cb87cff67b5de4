#include "algorithms/algorithm_names.h"

namespace hetccl {

const char* algorithmName(Algorithm algorithm) {
  switch (algorithm) {
    case Algorithm::Ring: return "ring";
    case Algorithm::Hierarchical: return "hier";
    case Algorithm::Torus: return "torus";
    case Algorithm::Small: return "small";
    case Algorithm::Native: return "native";
  }
  return "?";
}

bool parseAlgorithm(const std::string& name, Algorithm* algorithm) {
  for (Algorithm candidate : allAlgorithms())
    if (name == algorithmName(candidate)) {
      *algorithm = candidate;
      return true;
    }
  return false;
}

const std::vector<Algorithm>& allAlgorithms() {
  static const std::vector<Algorithm> all{Algorithm::Ring, Algorithm::Hierarchical, Algorithm::Torus, Algorithm::Small,
                                          Algorithm::Native};
  return all;
}

}  // namespace hetccl
