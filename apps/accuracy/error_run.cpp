#include "accuracy/error_run.h"

#include <cstdint>
#include <cstdlib>
#include <vector>

#include "core/thread_job.h"
#include "perf/rounding_error.h"

namespace hetccl_accuracy {

namespace {

using hetccl_perf::Collective;

// Hundreds of rank threads on a few cores take turns through creation's collectives: far
// longer than the thread tests' minute, still an end for a job that cannot finish.
constexpr double kCreationSeconds = 600;

// The rank's input: element `index` of the whole send buffer (a reduce-scatter's runs over
// every rank's block).
std::vector<uint16_t> inputOf(const AccuracyOptions& o, int rank, size_t sendCount) {
  std::vector<uint16_t> input(sendCount);
  for (size_t i = 0; i < sendCount; ++i) input[i] = hetccl_perf::errorInputBits(o.type, rank, i);
  return input;
}

// One rank's call: its input in, its output out (into *output), on its own stream.
std::string runRank(const AccuracyOptions& o, hetccl::ThreadRank& self, int nranks, std::vector<uint16_t>* output,
                    std::string* ran) {
  const bool allReduce = o.collective == Collective::AllReduce;
  const size_t sendCount = allReduce ? o.count : o.count * static_cast<size_t>(nranks);
  const std::vector<uint16_t> input = inputOf(o, self.rank, sendCount);
  void* send = nullptr;
  void* recv = nullptr;
  std::string failed;
  const auto check = [&](hetcclResult_t result, const char* what) {
    if (result != hetcclSuccess && failed.empty())
      failed = std::string(what) + ": " + hetcclGetErrorString(result) + ": " + hetcclGetLastError(self.comm);
    return failed.empty();
  };
  const auto type = static_cast<hetcclDataType_t>(o.type);  // the base layer's values are hetccl's
  const auto op = static_cast<hetcclRedOp_t>(o.op);
  if (check(hetcclMemAlloc(&send, sendCount * sizeof(uint16_t)), "hetcclMemAlloc") &&
      check(hetcclMemAlloc(&recv, o.count * sizeof(uint16_t)), "hetcclMemAlloc") &&
      check(hetcclMemcpyToDevice(send, input.data(), sendCount * sizeof(uint16_t)), "hetcclMemcpyToDevice") &&
      check(allReduce ? hetcclAllReduce(send, recv, o.count, type, op, self.comm, self.stream)
                      : hetcclReduceScatter(send, recv, o.count, type, op, self.comm, self.stream),
            allReduce ? "hetcclAllReduce" : "hetcclReduceScatter") &&
      check(hetcclStreamSynchronize(self.stream), "hetcclStreamSynchronize")) {
    output->resize(o.count);
    const char* name = nullptr;
    if (check(hetcclMemcpyFromDevice(output->data(), recv, o.count * sizeof(uint16_t)), "hetcclMemcpyFromDevice") &&
        self.rank == 0 && check(hetcclCommGetAlgorithm(self.comm, &name), "hetcclCommGetAlgorithm"))
      *ran = name;
  }
  if (send) (void)hetcclMemFree(send);
  if (recv) (void)hetcclMemFree(recv);
  return failed;
}

}  // namespace

std::string setEmulatedLayout(int nranks, int nodeRanks) {
  const int half = nranks / 2;
  int perNode = nodeRanks < half ? nodeRanks : half;
  while (half % perNode != 0) --perNode;
  const std::string vendors = "nvidia:" + std::to_string(half) + ",amd:" + std::to_string(half);
  std::string nodes;
  for (int node = 0; node < nranks / perNode; ++node)
    nodes += (node ? ",n" : "n") + std::to_string(node) + ":" + std::to_string(perNode);
  setenv("HETCCL_EMULATE_VENDORS", vendors.c_str(), 1);
  setenv("HETCCL_EMULATE_NODES", nodes.c_str(), 1);
  return vendors + ", nodes of " + std::to_string(perNode);
}

ErrorRun measureError(const AccuracyOptions& o, int nranks, const std::string& algorithm, const char* accumulate) {
  hetcclConfig_t config = HETCCL_CONFIG_INITIALIZER;
  config.algorithm = algorithm.c_str();
  config.accumulate = accumulate;
  std::vector<std::vector<uint16_t>> outputs(static_cast<size_t>(nranks));
  ErrorRun run;
  run.failure = hetccl::runOnCommunicators(
      nranks, &config,
      [&](hetccl::ThreadRank& self) {
        return runRank(o, self, nranks, &outputs[static_cast<size_t>(self.rank)], &run.ran);
      },
      kCreationSeconds);
  if (!run.failure.empty()) return run;
  // The reference is computed here from the inputs, never by the library.
  const bool allReduce = o.collective == Collective::AllReduce;
  std::vector<double> exact(allReduce ? o.count : o.count * static_cast<size_t>(nranks));
  for (size_t i = 0; i < exact.size(); ++i) exact[i] = hetccl_perf::exactResult(o.type, o.op, nranks, i);
  for (int rank = 0; rank < nranks; ++rank) {
    const std::vector<uint16_t>& out = outputs[static_cast<size_t>(rank)];
    const size_t first = allReduce ? 0 : static_cast<size_t>(rank) * o.count;
    for (size_t i = 0; i < o.count; ++i) {
      const double error = hetccl_perf::ulpError(o.type, out[i], exact[first + i]);
      if (error > run.maxUlp) run.maxUlp = error;
    }
    if (allReduce && out != outputs[0]) ++run.ranksDiffering;
  }
  return run;
}

}  // namespace hetccl_accuracy
