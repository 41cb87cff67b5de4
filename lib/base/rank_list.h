// Per-rank lists as users write them in HETCCL_EMULATE_VENDORS and HETCCL_EMULATE_NODES:
// comma-separated `name[:count]` entries, expanded in MPI_COMM_WORLD rank order ("nvidia:2,amd"
// is nvidia, nvidia, amd).  The library and the training example read the same grammar here.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace hetccl {

struct RankListEntry {
  std::string name;
  long long count = 1;
};

// The entries of `text`; an error naming `variable` on a malformed entry (empty name, a count
// that is not a positive integer, more than one colon).
Status parseRankList(const std::string& text, const char* variable, std::vector<RankListEntry>* entries);

// The name of each of `nranks` ranks.  The list must describe exactly `nranks` ranks; a count
// larger than the job is refused before anything is expanded.
Status expandRankList(const std::string& text, int nranks, const char* variable, std::vector<std::string>* names);

}  // namespace hetccl
