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
  const Key key = keyOf(request, elementBytes);
  if (last_ != nullptr && last_->first == key) return &last_->second;
  auto found = entries_.find(key);
  if (found == entries_.end()) return nullptr;
  last_ = &*found;
  return &found->second;
}

const CachedPlan& PlanCache::insert(const PlanRequest& request, size_t elementBytes, CachedPlan plan) {
  if (entries_.size() >= kCapacity) {
    entries_.clear();
    last_ = nullptr;
  }
  plan.id = nextId_++;
  auto entry = entries_.insert_or_assign(keyOf(request, elementBytes), std::move(plan)).first;
  last_ = &*entry;
  return entry->second;
}

}  // namespace hetccl
