// The cost model's shared island uplink (CostParameters::islandUplinkBeta): concurrent
// cross-island pairs of one island share it, a single crossing per island does not notice it.
// The figures are what a 2 x 2 layout of the test cluster does: two vendors' fabrics joined by
// a trunk slower than the nodes' uplinks.
#include <gtest/gtest.h>

#include "algorithms/cost_model.h"

namespace hetccl {
namespace {

// Two islands of two ranks; links priced so that the cross-island bytes dominate.
struct TwoByTwo {
  TopologyView topology = TopologyView::fromIslandIds({0, 0, 1, 1});
  CostParameters unshared;
  TwoByTwo() {
    unshared.intraIsland = LinkCost{20e-6, 1.0 / 0.25e9};
    unshared.interIsland = LinkCost{20e-6, 1.0 / 0.125e9};
  }
  CostParameters shared() const {
    CostParameters p = unshared;
    p.islandUplinkBeta = unshared.interIsland.beta;  // the trunk: one inter-island link's rate in all
    return p;
  }
  CostQuery query(Algorithm algorithm, size_t count) const {
    CostQuery q;
    q.algorithm = algorithm;
    q.request = PlanRequest{Collective::AllReduce, count, 4, 0, false, false, &topology};
    q.chunkBytes = size_t{1} << 20;
    return q;
  }
};

// The torus's cross-island phase runs between both index pairs at once: through one shared
// trunk it takes about twice as long.  16 MiB of floats: each rank all-reduces its 8 MiB half
// with its partner, sending 8 MiB across; the island sends 16 MiB.
TEST(CostModelUplink, ConcurrentPairsShareTheTrunk) {
  const TwoByTwo t;
  const CostQuery q = t.query(Algorithm::Torus, size_t{1} << 22);
  const double alone = predictSeconds(q, t.unshared), sharing = predictSeconds(q, t.shared());
  const double perRankCross = 8.0 * (1 << 20) * t.unshared.interIsland.beta;
  EXPECT_NEAR(sharing - alone, perRankCross, 0.15 * perRankCross) << alone << " vs " << sharing;
  EXPECT_STREQ(explainSeconds(q, t.shared()).busiestResource, "island uplink");
}

// A flat ring crosses each way once per island: one sender per island, nothing shared.
TEST(CostModelUplink, OneCrossingPerIslandIsUnchanged) {
  const TwoByTwo t;
  for (size_t count : {size_t{256}, size_t{1} << 22}) {
    const CostQuery q = t.query(Algorithm::Ring, count);
    EXPECT_NEAR(predictSeconds(q, t.shared()), predictSeconds(q, t.unshared), 1e-9) << count;
  }
}

// Without an uplink figure the model is what it was: the default is "not shared".
TEST(CostModelUplink, ZeroMeansNoSharedLimit) {
  const TwoByTwo t;
  EXPECT_EQ(CostParameters{}.islandUplinkBeta, 0.0);
  const CostQuery q = t.query(Algorithm::Torus, size_t{1} << 22);
  CostParameters zero = t.unshared;
  zero.islandUplinkBeta = 0;
  EXPECT_EQ(predictSeconds(q, zero), predictSeconds(q, t.unshared));
}

}  // namespace
}  // namespace hetccl
