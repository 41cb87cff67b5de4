// The communicators hetccl-perf measures with: one per --algo entry, each created with a
// hetcclConfig_t that forces that algorithm, so several algorithms are timed side by side in
// one run (same job, same placement, same moment).  Without --algo, one communicator with the
// library's own setting.
#pragma once

#include <hetccl/hetccl.h>

#include <string>
#include <vector>

namespace hetccl_perf {

struct AlgorithmCommunicator {
  std::string requested;  // the --algo entry; "" for the library's own setting
  hetcclComm_t comm = nullptr;
};

class AlgorithmCommunicators {
 public:
  AlgorithmCommunicators() = default;
  ~AlgorithmCommunicators();
  AlgorithmCommunicators(const AlgorithmCommunicators&) = delete;
  AlgorithmCommunicators& operator=(const AlgorithmCommunicators&) = delete;

  // Collective over MPI_COMM_WORLD.  Stops at the first entry that fails on any rank (an
  // algorithm this topology cannot run, a bad HETCCL_* setting): the lowest failing rank
  // prints why, every rank frees what it made, and all return the same failing code.
  // `accumulate` ("" for the library's own setting) goes into every config (--accumulate).
  hetcclResult_t create(const std::vector<std::string>& requested, const std::string& accumulate = "");

  const std::vector<AlgorithmCommunicator>& all() const { return comms_; }

 private:
  std::vector<AlgorithmCommunicator> comms_;
};

}  // namespace hetccl_perf
