// main() of the multi-rank suite: every rank runs the same tests in the same order (so tests
// may be collective), rank 0 prints GoogleTest's usual output, other ranks print only their
// failures (prefixed with their rank), and the exit status is non-zero on every rank if any rank
// failed a test — mpirun then reports the failure whichever rank saw it.
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <mpi.h>

#include "mpi_test_support.h"

namespace {

// Replaces the default printer on ranks other than 0: silent except for failures.
class RankFailurePrinter : public ::testing::EmptyTestEventListener {
 public:
  explicit RankFailurePrinter(int rank) : rank_(rank) {}

  void OnTestStart(const ::testing::TestInfo& info) override {
    current_ = info.test_suite_name() + std::string(".") + info.name();
    failuresInTest_ = 0;
  }

  void OnTestPartResult(const ::testing::TestPartResult& result) override {
    if (!result.failed()) return;
    // A systematic bug fails every case of a matrix on every rank; rank 0 prints them all,
    // the other ranks a few each, which is enough to see whether ranks disagree.
    if (++failuresInTest_ > kMaxPrintedPerTest) {
      if (failuresInTest_ == kMaxPrintedPerTest + 1) {
        std::fprintf(stdout, "[rank %d] further failures in %s not printed\n", rank_, current_.c_str());
        std::fflush(stdout);
      }
      return;
    }
    std::fprintf(stdout, "[rank %d] FAILURE in %s at %s:%d\n%s\n", rank_, current_.c_str(),
                 result.file_name() != nullptr ? result.file_name() : "?", result.line_number(), result.message());
    std::fflush(stdout);
  }

 private:
  static constexpr int kMaxPrintedPerTest = 5;
  int rank_;
  int failuresInTest_ = 0;
  std::string current_;
};

// Creates the shared world communicator and user stream; returns false (on this rank) if either
// could not be made.
bool setUpWorld() {
  hetccl_test::CommPair world;
  world.mpi = MPI_COMM_WORLD;
  const hetcclResult_t init = hetcclCommInitMPI(&world.comm, MPI_COMM_WORLD, nullptr);
  if (init != hetcclSuccess) {
    std::fprintf(stderr, "hetcclCommInitMPI(MPI_COMM_WORLD) failed: %s: %s\n", hetcclGetErrorString(init),
                 hetcclGetLastError(nullptr));
    return false;
  }
  hetcclStream_t stream = nullptr;
  const hetcclResult_t created = hetcclStreamCreate(&stream);
  if (created != hetcclSuccess) {
    std::fprintf(stderr, "hetcclStreamCreate failed: %s\n", hetcclGetErrorString(created));
    return false;
  }
  hetccl_test::setWorld(world, stream);
  return true;
}

bool tearDownWorld() {
  bool ok = true;
  if (hetccl_test::userStream() != nullptr && hetcclStreamDestroy(hetccl_test::userStream()) != hetcclSuccess) {
    std::fprintf(stderr, "hetcclStreamDestroy failed\n");
    ok = false;
  }
  if (hetccl_test::world().comm != nullptr && hetcclCommDestroy(hetccl_test::world().comm) != hetcclSuccess) {
    std::fprintf(stderr, "hetcclCommDestroy(world) failed\n");
    ok = false;
  }
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  // MPI_THREAD_MULTIPLE: hetccl's progress threads call MPI while this thread may too;
  // with less, hetccl runs every operation on the calling thread.
  int threadLevel = MPI_THREAD_SINGLE;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &threadLevel);
  ::testing::InitGoogleTest(&argc, argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  ::testing::TestEventListeners& listeners = ::testing::UnitTest::GetInstance()->listeners();
  if (rank != 0) {
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new RankFailurePrinter(rank));
  }

  // Creation is collective: agree on success before anyone runs a test.
  int worldOk = setUpWorld() ? 1 : 0;
  MPI_Allreduce(MPI_IN_PLACE, &worldOk, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);

  int failed = 1;
  if (worldOk) {
    const int status = RUN_ALL_TESTS();
    // A filter that matches nothing would pass vacuously; a ctest entry must test something.
    const bool ranNothing = ::testing::UnitTest::GetInstance()->test_to_run_count() == 0;
    if (ranNothing && rank == 0) std::fprintf(stderr, "no test matched the filter\n");
    failed = (status != 0 || ranNothing) ? 1 : 0;
    if (!tearDownWorld()) failed = 1;
  } else if (rank == 0) {
    std::fprintf(stderr, "could not create the world communicator on every rank\n");
  }

  std::vector<int> perRank(static_cast<size_t>(size), 0);
  MPI_Gather(&failed, 1, MPI_INT, perRank.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  int anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    std::printf("[mpi] %d rank(s):", size);
    for (int r = 0; r < size; ++r) std::printf(" %d=%s", r, perRank[static_cast<size_t>(r)] ? "FAILED" : "ok");
    std::printf("\n");
    std::fflush(stdout);
  }
  MPI_Finalize();
  return anyFailed ? 1 : 0;
}
