#include "core/bootstrap.h"

#include <algorithm>

namespace hetccl {

Status allTrue(Bootstrap& members, bool mine, bool* everyone) {
  const char flag = mine ? 1 : 0;
  std::vector<char> all(static_cast<size_t>(members.size()));
  HETCCL_TRY(members.allGather(&flag, 1, all.data()));
  *everyone = std::find(all.begin(), all.end(), 0) == all.end();
  return Status::ok();
}

Status agree(Bootstrap& members, const Status& mine, const char* what) {
  bool everyone = false;
  HETCCL_TRY(allTrue(members, mine.isOk(), &everyone));
  if (!mine.isOk()) return mine;
  if (!everyone) return HETCCL_STATUS(Code::RemoteError, "%s failed on another rank (its log says why)", what);
  return Status::ok();
}

}  // namespace hetccl
