// Entries that force an algorithm (HETCCL_ALGO, or config.algorithm of a communicator made
// with one, which takes precedence as in the library) must see it run: after each collective
// the checks compare hetcclCommGetAlgorithm with the plan the forced algorithm has for that
// collective.  A collective the forced algorithm has no plan for is left to the tuner by the
// library (e.g. reduce under "hier"), so it is not checked.
#pragma once

#include <string>

#include "mpi_test_support.h"

namespace hetccl_test {

enum class CollectiveKind { AllReduce, ReduceScatter, AllGather, Broadcast, Reduce, AlltoAll };

// The algorithm forced on `comm` ("ring", "hier", ...), or "" when the tuner chooses.
std::string forcedAlgorithm(const CommPair& comm);

// The name hetcclCommGetAlgorithm reports (before any ":library" or "+library") for
// `collective` run by the forced `algorithm`, or "" when that algorithm has no plan for it.
std::string expectedPlanName(const std::string& algorithm, CollectiveKind collective);

// EXPECTs that the last operation on `comm` ran the plan its forced algorithm has for
// `collective`; nothing when no algorithm is forced or it has no such plan.
void expectForcedAlgorithmRan(const CommPair& comm, CollectiveKind collective, const std::string& context);

}  // namespace hetccl_test
