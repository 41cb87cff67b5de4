#include "forced_algorithm.h"

#include <cctype>
#include <cstdlib>

namespace hetccl_test {

namespace {

std::string lowercase(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

// HETCCL_ALGO as the library reads it (case does not matter; "auto" forces nothing).
const std::string& environmentAlgorithm() {
  static const std::string algorithm = [] {
    const char* value = std::getenv("HETCCL_ALGO");
    return lowercase(value ? value : "");
  }();
  return algorithm;
}

}  // namespace

std::string forcedAlgorithm(const CommPair& comm) {
  const std::string algorithm = comm.configAlgorithm.empty() ? environmentAlgorithm() : lowercase(comm.configAlgorithm);
  return algorithm == "auto" ? "" : algorithm;
}

// The library's plans, by name: the flat ones are "ring" where they are rings, "chain" for
// broadcast and reduce, "direct" for all-to-all.
std::string expectedPlanName(const std::string& algorithm, CollectiveKind collective) {
  const bool allReduce = collective == CollectiveKind::AllReduce;
  if (algorithm == "native") return "native";
  if (algorithm == "small") return allReduce || collective == CollectiveKind::AllGather ? algorithm : "";
  if (algorithm == "torus" || algorithm == "hier-rhd" || algorithm == "hier-tree" || algorithm == "hier-dbtree")
    return allReduce ? algorithm : "";
  if (algorithm == "hier")
    return collective == CollectiveKind::Reduce || collective == CollectiveKind::AlltoAll ? "" : "hier";
  if (algorithm == "ring") {
    switch (collective) {
      case CollectiveKind::AllReduce:
      case CollectiveKind::ReduceScatter:
      case CollectiveKind::AllGather: return "ring";
      case CollectiveKind::Broadcast:
      case CollectiveKind::Reduce: return "chain";
      case CollectiveKind::AlltoAll: return "direct";
    }
  }
  ADD_FAILURE() << "no expectation for the forced algorithm \"" << algorithm << "\": add it to expectedPlanName";
  return "";
}

void expectForcedAlgorithmRan(const CommPair& comm, CollectiveKind collective, const std::string& context) {
  const std::string algorithm = forcedAlgorithm(comm);
  if (algorithm.empty()) return;
  const std::string expected = expectedPlanName(algorithm, collective);
  if (expected.empty()) return;
  const char* reported = nullptr;
  EXPECT_EQ(hetcclCommGetAlgorithm(comm.comm, &reported), hetcclSuccess) << context;
  const std::string name = reported ? reported : "(null)";
  EXPECT_EQ(name.substr(0, name.find_first_of(":+")), expected)
      << context << ": forced " << algorithm << ", but " << name << " ran";
}

}  // namespace hetccl_test
