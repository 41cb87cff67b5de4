#include "rank_vendor.h"

#include <cstdlib>
#include <cstring>

namespace hetccl_train {

namespace {

// Expands "nvidia:2,amd" to {nvidia, nvidia, amd}; false on a malformed entry.
bool expandRankList(const std::string& text, std::vector<std::string>* names) {
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string entry = text.substr(start, end - start);
    const size_t colon = entry.find(':');
    const std::string name = entry.substr(0, colon);
    long count = 1;
    if (colon != std::string::npos) {
      char* tail = nullptr;
      count = std::strtol(entry.c_str() + colon + 1, &tail, 10);
      if (*tail != '\0' || colon + 1 == entry.size()) return false;
    }
    if (name.empty() || count < 1) return false;
    names->insert(names->end(), static_cast<size_t>(count), name);
    start = end + 1;
  }
  return true;
}

}  // namespace

std::string thisRankVendor(const std::string& override, std::string* error) {
  if (!override.empty()) return override;
  const char* emulated = std::getenv("HETCCL_EMULATE_VENDORS");
  if (emulated == nullptr || *emulated == '\0') return "unknown";
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::string> names;
  if (!expandRankList(emulated, &names) || static_cast<int>(names.size()) != size) {
    *error = std::string("HETCCL_EMULATE_VENDORS=") + emulated + " does not describe the job's " +
             std::to_string(size) + " ranks";
    return "";
  }
  return names[static_cast<size_t>(rank)];
}

std::vector<std::string> allVendors(const std::string& mine, MPI_Comm comm) {
  constexpr int kNameBytes = 32;
  int size = 1;
  MPI_Comm_size(comm, &size);
  char name[kNameBytes] = {};
  std::strncpy(name, mine.c_str(), kNameBytes - 1);
  std::vector<char> names(static_cast<size_t>(size) * kNameBytes);
  MPI_Allgather(name, kNameBytes, MPI_CHAR, names.data(), kNameBytes, MPI_CHAR, comm);
  std::vector<std::string> vendors;
  for (int r = 0; r < size; ++r) vendors.emplace_back(names.data() + static_cast<size_t>(r) * kNameBytes);
  return vendors;
}

}  // namespace hetccl_train
