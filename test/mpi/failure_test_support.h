// What the failure tests (timeout, abort, call check, remote error, mismatch) share: they take
// seconds and each makes communicators of its own with particular settings, so they run only in
// their own CTest entries (mpi_failures_*, HETCCL_TEST_FAILURES=1) and skip elsewhere.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "mpi_test_support.h"

namespace hetccl_test {

bool failureTestsWanted();

// Skips the calling test outside the failure entries.
#define SKIP_UNLESS_FAILURE_TESTS() \
  if (!failureTestsWanted()) GTEST_SKIP() << "set HETCCL_TEST_FAILURES=1 (own CTest entries: they take seconds)"

// A communicator over MPI_COMM_WORLD made with these HETCCL_* variables set (unset again after),
// e.g. {{"HETCCL_TIMEOUT", "2"}, {"HETCCL_INLINE_BYTES", "0"}}; nullptr (and a failed
// expectation) when creation fails.
hetcclComm_t communicatorWithSettings(const std::vector<std::pair<std::string, std::string>>& settings);

double secondsSince(std::chrono::steady_clock::time_point start);

}  // namespace hetccl_test
