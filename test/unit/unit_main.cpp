// Single-process unit tests: nothing here calls MPI, so no MPI_Init (which as a singleton
// would start Open MPI's runtime for nothing).
#include <gtest/gtest.h>

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
