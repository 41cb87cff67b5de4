#include "island_layouts.h"

namespace hetccl {

std::vector<std::vector<int>> islandLayoutsFor(int p) {
  std::vector<std::vector<int>> layouts{std::vector<int>(p, 0)};
  std::vector<int> halves, interleaved, threeWays, unevenTail;
  for (int r = 0; r < p; ++r) {
    halves.push_back(r < p / 2 ? 0 : 1);
    interleaved.push_back(r % 2);
    threeWays.push_back((r * 7) % 3);
    unevenTail.push_back(r == p - 1 ? 1 : 0);
  }
  for (auto* layout : {&halves, &interleaved, &threeWays, &unevenTail}) layouts.push_back(*layout);
  if (p == 8) layouts.push_back({0, 0, 0, 0, 0, 1, 1, 2});
  return layouts;
}

TopologyView islandsOf(int islands, int size, int tail) {
  std::vector<int> ids;
  for (int island = 0; island < islands; ++island)
    ids.insert(ids.end(), island == islands - 1 && tail > 0 ? tail : size, island);
  return TopologyView::fromIslandIds(ids);
}

}  // namespace hetccl
