// Faults on the test cluster's real links, driven from outside by cluster_fault.sh, which watches
// the marker files this program writes into DIR and writes its own:
//
//   cluster_fault link-down DIR   all-reduces in a loop until one fails.  Once DIR/started exists
//                                 the script takes a node's uplink down and writes the time it
//                                 did into DIR/down; every rank prints how its call ended and how
//                                 long after the link went down.  Then it aborts the communicator,
//                                 waits for DIR/up (the link is back), and a new communicator
//                                 all-reduces exactly: the job survives the fault.
//   cluster_fault reshape DIR     all-reduces, each checked exactly, until the script has shaped
//                                 a node's uplink down to a tenth of its rate (DIR/reshaped),
//                                 then a few more at the new rate.
//
// MPI itself reports nothing when a link goes quiet (TCP just retransmits), so hetccl's
// HETCCL_TIMEOUT (set by the script) is what ends the calls.  A standalone program, not a
// gtest: the ranks' lines are the result the script checks.
#include <hetccl/hetccl.h>
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr size_t kCount = size_t{1} << 20;  // 4 MiB of floats: many chunks on every link

double wallSeconds() {  // the namespaces share the clock, so the script's times compare with these
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

bool fileExists(const std::string& path) { return std::ifstream(path).good(); }

double readSeconds(const std::string& path) {
  std::ifstream in(path);
  double seconds = 0;
  in >> seconds;
  return seconds;
}

// False when the script has not written it within a minute (it died): fail rather than hang.
bool waitForFile(const std::string& path) {
  const double deadline = wallSeconds() + 60;
  while (!fileExists(path)) {
    if (wallSeconds() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// Element i of rank r is (i mod 1024) + r: every partial sum is a small integer, exact in float
// whatever the order, so the result is known without a reference run.
struct Buffers {
  std::vector<float> host = std::vector<float>(kCount);
  void* device = nullptr;
  hetcclStream_t stream = nullptr;
};

bool fill(Buffers& b, int rank) {
  for (size_t i = 0; i < kCount; ++i) b.host[i] = static_cast<float>(i % 1024 + static_cast<size_t>(rank));
  return hetcclMemcpyToDevice(b.device, b.host.data(), kCount * sizeof(float)) == hetcclSuccess;
}

// How many elements differ from the exact sum over `ranks` ranks.
size_t wrongElements(Buffers& b, int ranks) {
  if (hetcclMemcpyFromDevice(b.host.data(), b.device, kCount * sizeof(float)) != hetcclSuccess) return kCount;
  size_t wrong = 0;
  const double offset = static_cast<double>(ranks) * (ranks - 1) / 2;
  for (size_t i = 0; i < kCount; ++i)
    if (b.host[i] != static_cast<float>(static_cast<double>(ranks) * static_cast<double>(i % 1024) + offset)) ++wrong;
  return wrong;
}

// One all-reduce, to its end: the call's own result, or the communicator's asynchronous error.
hetcclResult_t allReduce(Buffers& b, hetcclComm_t comm) {
  const hetcclResult_t called = hetcclAllReduce(b.device, b.device, kCount, hetcclFloat32, hetcclSum, comm, b.stream);
  const hetcclResult_t synchronized = hetcclStreamSynchronize(b.stream);
  hetcclResult_t async = hetcclSuccess;
  (void)hetcclCommGetAsyncError(comm, &async);
  if (called != hetcclSuccess) return called;
  return async != hetcclSuccess ? async : synchronized;
}

// An all-reduce on a fresh communicator, checked exactly.
bool freshCommunicatorWorks(Buffers& b, int rank, int ranks) {
  hetcclComm_t comm = nullptr;
  if (hetcclCommInitMPI(&comm, MPI_COMM_WORLD, nullptr) != hetcclSuccess) {
    std::printf("rank %d: a new communicator failed: %s\n", rank, hetcclGetLastError(comm));
    return false;
  }
  const bool ok = fill(b, rank) && allReduce(b, comm) == hetcclSuccess && wrongElements(b, ranks) == 0;
  std::printf("rank %d: new communicator %s\n", rank, ok ? "exact" : "WRONG");
  (void)hetcclCommDestroy(comm);
  return ok;
}

int linkDown(Buffers& b, hetcclComm_t comm, const std::string& dir, int rank, int ranks) {
  hetcclResult_t result = hetcclSuccess;
  int iterations = 0;
  const double deadline = wallSeconds() + 120;  // the script's fault never came: fail, do not hang
  while (result == hetcclSuccess && wallSeconds() < deadline) {
    if (!fill(b, rank)) return 1;
    result = allReduce(b, comm);
    if (result == hetcclSuccess && wrongElements(b, ranks) != 0) {
      std::printf("rank %d: WRONG result before the fault\n", rank);
      return 1;
    }
    if (++iterations == 2 && rank == 0) std::ofstream(dir + "/started") << wallSeconds() << "\n";
  }
  const double ended = wallSeconds();
  const double down = fileExists(dir + "/down") ? readSeconds(dir + "/down") : 0;
  char line[4096];
  std::snprintf(line, sizeof line, "rank %d: result %s %.2f s after the link went down (%d all-reduces): %s\n", rank,
                hetcclGetErrorString(result), down > 0 ? ended - down : -1.0, iterations, hetcclGetLastError(comm));
  // Also into a file: the output of a rank behind the downed link reaches mpirun only once the
  // link is back, and the script brings it back only when every rank has ended its call.
  std::ofstream(dir + "/result-" + std::to_string(rank)) << line;
  std::fputs(line, stdout);
  std::fflush(stdout);
  (void)hetcclCommAbort(comm);
  if (!waitForFile(dir + "/up")) {
    std::printf("rank %d: the link never came back\n", rank);
    return 1;
  }
  // Every rank is past its failure before the new communicator is made over MPI again.
  MPI_Barrier(MPI_COMM_WORLD);
  return freshCommunicatorWorks(b, rank, ranks) ? 0 : 1;
}

int reshape(Buffers& b, hetcclComm_t comm, const std::string& dir, int rank, int ranks) {
  // Until the script has reshaped the link (DIR/reshaped), then a few more at the new rate.
  // Rank 0 decides when to stop and tells the others, so every rank calls the same number.
  constexpr int kAfterReshape = 4;
  const double deadline = wallSeconds() + 60;
  size_t wrong = 0;
  int iterations = 0, left = -1;
  while (left != 0) {
    if (!fill(b, rank)) return 1;
    const hetcclResult_t result = allReduce(b, comm);
    if (result != hetcclSuccess) {
      std::printf("rank %d: all-reduce %d failed: %s\n", rank, iterations, hetcclGetLastError(comm));
      return 1;
    }
    wrong += wrongElements(b, ranks);
    if (++iterations == 2 && rank == 0) std::ofstream(dir + "/started") << wallSeconds() << "\n";
    int reshaped = rank == 0 && (fileExists(dir + "/reshaped") || wallSeconds() > deadline) ? 1 : 0;
    MPI_Bcast(&reshaped, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (left > 0) --left;
    if (reshaped && left < 0) left = kAfterReshape;
  }
  std::printf("rank %d: %d all-reduces, the last %d after the link was reshaped, %zu wrong elements\n", rank,
              iterations, kAfterReshape, wrong);
  (void)hetcclCommDestroy(comm);
  return wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  if (argc != 3 || (std::strcmp(argv[1], "link-down") != 0 && std::strcmp(argv[1], "reshape") != 0)) {
    std::fprintf(stderr, "usage: cluster_fault link-down|reshape DIR\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  int rank = 0, ranks = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  Buffers b;
  hetcclComm_t comm = nullptr;
  if (hetcclCommInitMPI(&comm, MPI_COMM_WORLD, nullptr) != hetcclSuccess ||
      hetcclStreamCreate(&b.stream) != hetcclSuccess ||
      hetcclMemAlloc(&b.device, kCount * sizeof(float)) != hetcclSuccess) {
    std::printf("rank %d: set-up failed: %s\n", rank, hetcclGetLastError(comm));
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  const std::string dir = argv[2];
  const int failed =
      std::strcmp(argv[1], "link-down") == 0 ? linkDown(b, comm, dir, rank, ranks) : reshape(b, comm, dir, rank, ranks);
  std::fflush(stdout);
  (void)hetcclMemFree(b.device);
  (void)hetcclStreamDestroy(b.stream);
  int anyFailed = 0;
  MPI_Allreduce(&failed, &anyFailed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return anyFailed;
}
