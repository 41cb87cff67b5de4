#include "algorithms/topology_view.h"

#include <map>

namespace hetccl {

bool TopologyView::equalIslands() const {
  for (const auto& island : members)
    if (island.size() != members.front().size()) return false;
  return true;
}

std::string TopologyView::describe() const {
  std::string text;
  for (size_t i = 0; i < members.size(); ++i) text += (i ? "+" : "") + std::to_string(members[i].size());
  bool contiguous = true;
  for (int r = 1; r < nranks; ++r)
    if (islandOf[r] < islandOf[r - 1]) contiguous = false;
  for (int r = 1; r < nranks; ++r)
    if (islandOf[r] != islandOf[r - 1] && indexInIsland[r] != 0) contiguous = false;
  return contiguous ? text : text + " interleaved";
}

TopologyView TopologyView::fromIslandIds(const std::vector<int>& islandIdOfRank) {
  TopologyView view;
  view.nranks = static_cast<int>(islandIdOfRank.size());
  std::map<int, int> indexOfId;
  for (int r = 0; r < view.nranks; ++r) {
    auto [it, inserted] = indexOfId.emplace(islandIdOfRank[r], static_cast<int>(view.members.size()));
    if (inserted) view.members.emplace_back();
    view.islandOf.push_back(it->second);
    view.indexInIsland.push_back(static_cast<int>(view.members[it->second].size()));
    view.members[it->second].push_back(r);
  }
  return view;
}

TopologyView TopologyView::singleIsland(int nranks) { return fromIslandIds(std::vector<int>(nranks, 0)); }

}  // namespace hetccl
