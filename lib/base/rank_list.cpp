#include "base/rank_list.h"

#include <climits>

#include "base/numbers.h"

namespace hetccl {

namespace {
const char* const kGrammar = "name[:count],... with each count a positive integer";
}  // namespace

Status parseRankList(const std::string& text, const char* variable, std::vector<RankListEntry>* entries) {
  entries->clear();
  size_t start = 0;
  while (true) {
    const size_t comma = text.find(',', start);
    const std::string entry = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const size_t colon = entry.find(':');
    RankListEntry parsed;
    parsed.name = entry.substr(0, colon);
    if (parsed.name.empty() || (colon != std::string::npos && entry.find(':', colon + 1) != std::string::npos))
      return HETCCL_STATUS(Code::InvalidArgument, "%s=%s: bad entry '%s' (expected %s)", variable, text.c_str(),
                           entry.c_str(), kGrammar);
    if (colon != std::string::npos) {
      if (!parseInteger(entry.substr(colon + 1), 1, LLONG_MAX, &parsed.count))
        return HETCCL_STATUS(Code::InvalidArgument, "%s=%s: bad count in '%s' (expected %s)", variable, text.c_str(),
                             entry.c_str(), kGrammar);
    }
    entries->push_back(parsed);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return Status::ok();
}

Status expandRankList(const std::string& text, int nranks, const char* variable, std::vector<std::string>* names) {
  std::vector<RankListEntry> entries;
  HETCCL_TRY(parseRankList(text, variable, &entries));
  // Summed with a cap, so that a huge count is an error about the job, never an allocation.
  long long described = 0;
  for (const RankListEntry& entry : entries) {
    if (entry.count > static_cast<long long>(nranks) - described) {  // also before an overflow
      described = static_cast<long long>(nranks) + 1;
      break;
    }
    described += entry.count;
  }
  if (described != nranks)
    return HETCCL_STATUS(Code::InvalidArgument, "%s=%s describes %s%lld ranks but the job has %d", variable,
                         text.c_str(), described > nranks ? "more than " : "",
                         described > nranks ? static_cast<long long>(nranks) : described, nranks);
  names->clear();
  for (const RankListEntry& entry : entries) names->insert(names->end(), static_cast<size_t>(entry.count), entry.name);
  return Status::ok();
}

}  // namespace hetccl
