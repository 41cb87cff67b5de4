#include "failure_test_support.h"

#include <cstdlib>

namespace hetccl_test {

bool failureTestsWanted() {
  const char* wanted = std::getenv("HETCCL_TEST_FAILURES");
  return wanted != nullptr && std::string(wanted) == "1";
}

hetcclComm_t communicatorWithSettings(const std::vector<std::pair<std::string, std::string>>& settings) {
  for (const auto& [name, value] : settings) setenv(name.c_str(), value.c_str(), 1);
  hetcclComm_t comm = nullptr;
  EXPECT_EQ(hetcclCommInitMPI(&comm, MPI_COMM_WORLD, nullptr), hetcclSuccess) << hetcclGetLastError(nullptr);
  for (const auto& setting : settings) unsetenv(setting.first.c_str());
  return comm;
}

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace hetccl_test
