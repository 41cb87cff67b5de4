// No C++ exception crosses the C API: an entry point's body that throws becomes a result code
// and a message for hetcclGetLastError, whatever it threw.
#include <gtest/gtest.h>

#include <new>
#include <stdexcept>
#include <string>

#include "core/api_support.h"

namespace hetccl {
namespace {

TEST(CBoundary, ExceptionsBecomeResultCodesWithAMessage) {
  EXPECT_EQ(atBoundary("hetcclAllReduce", []() -> hetcclResult_t { throw std::bad_alloc(); }), hetcclSystemError);
  EXPECT_NE(std::string(hetcclGetLastError(nullptr)).find("hetcclAllReduce: out of memory"), std::string::npos)
      << hetcclGetLastError(nullptr);
  EXPECT_EQ(atBoundary("hetcclGroupEnd", []() -> hetcclResult_t { throw std::length_error("vector too long"); }),
            hetcclInternalError);
  EXPECT_NE(std::string(hetcclGetLastError(nullptr)).find("hetcclGroupEnd: vector too long"), std::string::npos);
  EXPECT_EQ(atBoundary("hetcclSend", []() -> hetcclResult_t { throw 42; }), hetcclInternalError);
  EXPECT_EQ(atBoundary("hetcclRecv", []() -> hetcclResult_t { return hetcclSuccess; }), hetcclSuccess);
}

}  // namespace
}  // namespace hetccl
