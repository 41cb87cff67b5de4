// Calls that are in place on some ranks only.  NCCL lets each rank decide (a broadcast's root
// may pass one buffer while the others pass two), and hetccl's own hierarchical plans call the
// island library that way.  Every rank must still choose the same algorithm, chunk size and
// island slices, or their plans' messages do not match: the tuner once priced each rank's own
// placement, and a 2-rank broadcast of 1048579 floats took 256 KiB chunks on the root and
// 4 MiB on the other rank, and hung.  So the choice, seen through the predicted time every
// rank reports, must be the same on all ranks, and the values right.
#include <mpi.h>

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "mpi_test_support.h"
#include "reference.h"

namespace hetccl_test {
namespace {

// Counts that divide into no chunk size evenly: a small one, and one of several 256 KiB chunks
// (in-place and out-of-place prices differ at both, so a per-rank choice shows at both).
const std::vector<size_t> kCounts = {1000, 196613};

// Broadcast of `count` elements from `root` where the ranks `inPlace(rank)` says pass one buffer.
template <typename InPlace>
void checkMixedBroadcast(const TypeInfo& t, size_t count, int root, InPlace inPlace, const std::string& name) {
  const CommPair& comm = world();
  const int n = comm.size(), rank = comm.rank();
  const bool mine = inPlace(rank);
  const std::string ctx = describe(name.c_str(), &t, nullptr, count, mine, root, nullptr, comm);
  const uint64_t seed = nextSeed();
  const size_t bytes = count * t.size;
  const Bytes input = makeInput(t, hetcclSum, n, rank, count, seed);
  const Bytes expected = referenceBroadcast(t, input, count, root, comm.mpi);
  DeviceBuffer send(bytes), recv(mine ? 0 : bytes);
  send.upload(mine && rank != root ? makeGarbage(bytes, rank, seed) : input);
  void* out = mine ? send.data() : recv.data();
  expectSuccess(hetcclBroadcast(send.data(), out, count, t.type, root, comm.comm, nullptr), comm.comm, ctx);
  syncStream(nullptr, ctx);
  expectSameBits(t, expected, mine ? send.download() : recv.download(), ctx);

  double predicted = -1;
  ASSERT_EQ(hetcclCommGetPredictedTime(comm.comm, &predicted), hetcclSuccess);
  std::vector<double> all(static_cast<size_t>(n));
  MPI_Allgather(&predicted, 1, MPI_DOUBLE, all.data(), 1, MPI_DOUBLE, comm.mpi);
  for (int r = 0; r < n; ++r)
    EXPECT_EQ(all[static_cast<size_t>(r)], all[0]) << ctx << ": rank " << r << " chose otherwise than rank 0";
}

TEST(MixedInPlace, BroadcastWithTheRootAloneInPlace) {
  const int root = world().size() - 1;
  for (size_t count : kCounts)
    checkMixedBroadcast(
        typeInfo(hetcclFloat32), count, root, [root](int r) { return r == root; }, "Broadcast");
}

TEST(MixedInPlace, BroadcastWithAllButTheRootInPlace) {
  for (size_t count : kCounts)
    checkMixedBroadcast(
        typeInfo(hetcclInt8), count, 0, [](int r) { return r != 0; }, "Broadcast");
}

}  // namespace
}  // namespace hetccl_test
