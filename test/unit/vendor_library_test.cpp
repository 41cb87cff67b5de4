// Opening vendor collectives libraries at run time: clear errors for a missing file and for a
// library that is not NCCL-shaped, and hetccl's own drop-in recognised as such (so that
// HETCCL_ISLAND_LIBRARY=auto never hands work back to hetccl).
#include <gtest/gtest.h>

#include "device/vendor/vendor_library.h"

namespace hetccl {
namespace {

TEST(VendorLibrary, MissingFileIsAClearError) {
  std::unique_ptr<VendorLibrary> library;
  Status status = VendorLibrary::open("/nonexistent/librccl.so.1", &library);
  EXPECT_EQ(status.code(), Code::SystemError);
  EXPECT_NE(status.message().find("cannot load /nonexistent/librccl.so.1"), std::string::npos) << status.message();
  EXPECT_EQ(library, nullptr);
}

TEST(VendorLibrary, ALibraryWithoutNcclCallsIsRefusedByName) {
  std::unique_ptr<VendorLibrary> library;
  Status status = VendorLibrary::open("libm.so.6", &library);
  EXPECT_EQ(status.code(), Code::SystemError);
  EXPECT_NE(status.message().find("is not an NCCL/RCCL library: it has no ncclGetVersion"), std::string::npos)
      << status.message();
  EXPECT_EQ(library, nullptr);
}

TEST(VendorLibrary, NoThreadIsInsideAVendorCallByDefault) { EXPECT_FALSE(insideVendorLibraryCall()); }

#ifdef HETCCL_TEST_NCCL_DROPIN
TEST(VendorLibrary, HetcclsOwnDropInIsRecognised) {
  std::unique_ptr<VendorLibrary> library;
  Status status = VendorLibrary::open(HETCCL_TEST_NCCL_DROPIN, &library);
  ASSERT_TRUE(status.isOk()) << status.message();
  EXPECT_TRUE(library->isHetcclDropIn());
  EXPECT_EQ(library->shortName(), "hetccl-nccl");
  EXPECT_NE(library->describe().find("(version "), std::string::npos) << library->describe();
  VendorUniqueId id{};
  EXPECT_TRUE(library->uniqueId(&id).isOk());  // needs no MPI
  EXPECT_FALSE(insideVendorLibraryCall());     // the scope ends with the call
}
#endif

}  // namespace
}  // namespace hetccl
