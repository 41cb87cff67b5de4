#include "core/plan_cache.h"

#include <utility>

namespace hetccl {

// Everything of a request that a plan depends on; the topology is the communicator's, fixed.
PlanCache::Key PlanCache::keyOf(const PlanRequest& request, size_t elementBytes) {
  return Key{static_cast<int>(request.collective),
             request.count,
             elementBytes,
             request.root,
             request.inPlace,
             request.average,
             request.vendorIslandSteps};
}

const CachedPlan* PlanCache::find(const PlanRequest& request, size_t elementBytes) const {
  auto found = entries_.find(keyOf(request, elementBytes));
  return found == entries_.end() ? nullptr : &found->second;
}

const CachedPlan& PlanCache::insert(const PlanRequest& request, size_t elementBytes, CachedPlan plan) {
  if (entries_.size() >= kCapacity) entries_.clear();
  return entries_.insert_or_assign(keyOf(request, elementBytes), std::move(plan)).first->second;
}

}  // namespace hetccl
