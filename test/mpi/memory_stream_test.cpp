// Device memory and streams through the public API, and collectives on the default and on
// user-created streams.
#include <gtest/gtest.h>

#include "collective_checks.h"

namespace hetccl_test {
namespace {

TEST(Memory, AllocZeroBytesAndFree) {
  void* p = reinterpret_cast<void*>(0x1);  // must be overwritten (NULL or a real allocation)
  EXPECT_EQ(hetcclMemAlloc(&p, 0), hetcclSuccess);
  EXPECT_NE(p, reinterpret_cast<void*>(0x1));
  EXPECT_EQ(hetcclMemFree(p), hetcclSuccess);
}

TEST(Memory, CopyRoundTrip) {
  for (size_t bytes : {size_t{1}, size_t{4099}, (size_t{3} << 20) + 7}) {
    const Bytes data = makeGarbage(bytes, world().rank(), nextSeed());
    DeviceBuffer b(bytes);
    b.upload(data);
    EXPECT_EQ(b.download(), data) << bytes << " bytes";
    // A copy into the middle of a device buffer lands only there.
    if (bytes >= 8) {
      const Bytes patch(3, 0x5A);
      const size_t offset = bytes / 2;
      b.upload(patch, offset);
      Bytes expected = data;
      std::copy(patch.begin(), patch.end(), expected.begin() + static_cast<std::ptrdiff_t>(offset));
      EXPECT_EQ(b.download(), expected) << bytes << " bytes, patched at " << offset;
    }
    EXPECT_TRUE(b.guardsIntact());
  }
}

TEST(Streams, CreateSynchronizeDestroy) {
  for (int i = 0; i < 3; ++i) {
    hetcclStream_t s = nullptr;
    EXPECT_EQ(hetcclStreamCreate(&s), hetcclSuccess);
    EXPECT_NE(s, nullptr);
    EXPECT_EQ(hetcclStreamSynchronize(s), hetcclSuccess);  // empty stream
    EXPECT_EQ(hetcclStreamDestroy(s), hetcclSuccess);
  }
  EXPECT_EQ(hetcclStreamSynchronize(nullptr), hetcclSuccess);  // the default stream
}

TEST(Streams, CollectivesOnDefaultAndUserStreams) {
  hetcclStream_t own = nullptr;
  EXPECT_EQ(hetcclStreamCreate(&own), hetcclSuccess);
  const TypeInfo& f = typeInfo(hetcclFloat32);
  const int last = world().size() - 1;
  for (hetcclStream_t s : {hetcclStream_t{nullptr}, own, userStream(), own}) {
    checkAllReduce(world(), {&f, hetcclSum, 4099, false, 0, s});
    checkBroadcast(world(), {&f, hetcclSum, 1021, true, last, s});
    checkReduce(world(), {&typeInfo(hetcclInt32), hetcclProd, 1021, false, last, s});
  }
  if (own != nullptr) {
    EXPECT_EQ(hetcclStreamDestroy(own), hetcclSuccess);
  }
}

}  // namespace
}  // namespace hetccl_test
