// hetccl-perf's size arithmetic and bus factors: the numbers that make its table comparable
// with nccl-tests'.
#include <gtest/gtest.h>

#include "perf/collective_shape.h"

namespace hetccl_perf {
namespace {

TEST(PerfCollectiveShape, AllReduceCountsWholeElements) {
  CollectiveShape s = collectiveShape(Collective::AllReduce, 1002, 4, 4, 1);
  EXPECT_EQ(s.count, 250u);  // 1002 B of float: 250 whole elements
  EXPECT_EQ(s.sendElements, 250u);
  EXPECT_EQ(s.recvElements, 250u);
  EXPECT_EQ(s.bytes, 1000u);
  EXPECT_EQ(s.inPlaceElements, 250u);
  EXPECT_EQ(s.inPlaceSendOffset, 0u);
  EXPECT_EQ(s.inPlaceRecvOffset, 0u);
}

TEST(PerfCollectiveShape, AllGatherSizeIsTheGatheredBuffer) {
  // 4096 B of float over 3 ranks: 1024 elements, 341 per rank, 1023 gathered.
  CollectiveShape s = collectiveShape(Collective::AllGather, 4096, 4, 3, 2);
  EXPECT_EQ(s.count, 341u);
  EXPECT_EQ(s.sendElements, 341u);
  EXPECT_EQ(s.recvElements, 1023u);
  EXPECT_EQ(s.bytes, 1023u * 4);
  EXPECT_EQ(s.inPlaceElements, 1023u);
  EXPECT_EQ(s.inPlaceSendOffset, 2u * 341);  // sendbuff == recvbuff + rank * sendcount
  EXPECT_EQ(s.inPlaceRecvOffset, 0u);
}

TEST(PerfCollectiveShape, ReduceScatterSizeIsTheInputBuffer) {
  CollectiveShape s = collectiveShape(Collective::ReduceScatter, 4096, 2, 4, 3);
  EXPECT_EQ(s.count, 512u);
  EXPECT_EQ(s.sendElements, 2048u);
  EXPECT_EQ(s.recvElements, 512u);
  EXPECT_EQ(s.bytes, 4096u);
  EXPECT_EQ(s.inPlaceElements, 2048u);
  EXPECT_EQ(s.inPlaceSendOffset, 0u);
  EXPECT_EQ(s.inPlaceRecvOffset, 3u * 512);  // recvbuff == sendbuff + rank * recvcount
}

TEST(PerfCollectiveShape, AlltoAllCountIsPerPeer) {
  CollectiveShape s = collectiveShape(Collective::AlltoAll, 100, 8, 4, 0);
  EXPECT_EQ(s.count, 3u);  // 12 elements, 3 to each of 4 peers
  EXPECT_EQ(s.sendElements, 12u);
  EXPECT_EQ(s.recvElements, 12u);
  EXPECT_EQ(s.bytes, 96u);
}

TEST(PerfCollectiveShape, TooSmallForOneElementPerRank) {
  CollectiveShape s = collectiveShape(Collective::AllGather, 8, 4, 4, 1);
  EXPECT_EQ(s.count, 0u);
  EXPECT_EQ(s.bytes, 0u);
}

TEST(PerfCollectiveShape, RootedAndPointToPoint) {
  for (Collective c : {Collective::Broadcast, Collective::Reduce, Collective::SendRecv}) {
    CollectiveShape s = collectiveShape(c, 64, 8, 5, 4);
    EXPECT_EQ(s.count, 8u);
    EXPECT_EQ(s.bytes, 64u);
    EXPECT_EQ(s.recvElements, 8u);
  }
}

TEST(PerfCollectiveShape, BusFactorsAreNcclTests) {
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllReduce, 4), 1.5);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllReduce, 1), 0.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::ReduceScatter, 8), 0.875);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::AlltoAll, 2), 0.5);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::Broadcast, 16), 1.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::Reduce, 16), 1.0);
  EXPECT_DOUBLE_EQ(busBandwidthFactor(Collective::SendRecv, 16), 1.0);
  EXPECT_STREQ(busBandwidthFormula(Collective::AllReduce), "2(n-1)/n");
  EXPECT_STREQ(busBandwidthFormula(Collective::AlltoAll), "(n-1)/n");
  EXPECT_STREQ(busBandwidthFormula(Collective::SendRecv), "1");
}

}  // namespace
}  // namespace hetccl_perf
