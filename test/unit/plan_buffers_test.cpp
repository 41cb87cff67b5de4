// PlanBuffers keeps its first four buffers in place and the rest in a vector: every index
// must read and write its own buffer on either side of the boundary.
#include "runtime/plan_buffers.h"

#include <gtest/gtest.h>

namespace hetccl {
namespace {

char* at(int i) { return reinterpret_cast<char*>(0x1000 + 0x10 * i); }

TEST(PlanBuffers, KeepsEveryBufferOnBothSidesOfTheBoundary) {
  PlanBuffers buffers{at(0), at(1), at(2)};
  ASSERT_EQ(buffers.size(), 3u);
  for (int i = 3; i < 12; ++i) {
    buffers.push_back(at(i));
    ASSERT_EQ(buffers.size(), static_cast<size_t>(i + 1));
    for (int j = 0; j <= i; ++j) EXPECT_EQ(buffers[static_cast<size_t>(j)], at(j)) << "after " << i + 1;
  }
  buffers[1] = at(40);
  buffers[9] = at(41);
  const PlanBuffers copy = buffers;
  EXPECT_EQ(copy[1], at(40));
  EXPECT_EQ(copy[9], at(41));
  EXPECT_EQ(copy[11], at(11));
}

TEST(PlanBuffers, AssignStartsOver) {
  PlanBuffers buffers(7, at(1));
  EXPECT_EQ(buffers.size(), 7u);
  EXPECT_EQ(buffers[6], at(1));
  buffers.assign(2, nullptr);
  ASSERT_EQ(buffers.size(), 2u);
  buffers.push_back(at(5));
  EXPECT_EQ(buffers[0], nullptr);
  EXPECT_EQ(buffers[2], at(5));
  buffers[2] = at(6);
  EXPECT_EQ(buffers[2], at(6));
}

}  // namespace
}  // namespace hetccl
