// The plans a communicator has built, by what determines them: a training job repeats the same
// few calls thousands of times, and a small message's whole budget is about a microsecond,
// less than choosing an algorithm and building its plan takes.  Bounded: when full, it starts
// over (a job that never repeats a call gains nothing from keeping old plans).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "algorithms/plan.h"
#include "algorithms/tuner.h"

namespace hetccl {

// A plan ready to run: shared, because queued operations hold it while the cache moves on.
struct CachedPlan {
  std::shared_ptr<const RankPlan> plan;
  TuningChoice choice;
  std::string label;         // what hetcclCommGetAlgorithm reports: "ring", "hier+nccl", ...
  bool islandSteps = false;  // some steps go to the islands' vendor library (never inline)
  // Set by the cache, different for every entry it ever holds: a call that finds the entry
  // of the call before it need not compare labels (communicator.h, lastChoiceId).
  uint64_t id = 0;
};

class PlanCache {
 public:
  static constexpr size_t kCapacity = 256;

  PlanCache() = default;
  // Not copied: a copy's last_ would point into the original's map.
  PlanCache(const PlanCache&) = delete;
  PlanCache& operator=(const PlanCache&) = delete;

  // The entry for `request` with elements of `elementBytes`, or nullptr.
  const CachedPlan* find(const PlanRequest& request, size_t elementBytes) const;
  const CachedPlan& insert(const PlanRequest& request, size_t elementBytes, CachedPlan plan);

 private:
  using Key = std::tuple<int, size_t, size_t, int, bool, bool, bool>;
  static Key keyOf(const PlanRequest& request, size_t elementBytes);
  std::map<Key, CachedPlan> entries_;
  uint64_t nextId_ = 1;
  // The entry found or inserted last: a loop of one call finds it with one comparison of keys
  // instead of a walk down the map.
  mutable const std::pair<const Key, CachedPlan>* last_ = nullptr;
};

}  // namespace hetccl
