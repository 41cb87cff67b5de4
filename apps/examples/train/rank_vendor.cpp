#include "rank_vendor.h"

#include <cstring>

#include "base/rank_list.h"
#include "base/settings_reader.h"

namespace hetccl_train {

std::string thisRankVendor(const std::string& override, std::string* error) {
  if (!override.empty()) return override;
  const std::string emulated = hetccl::readText(hetccl::SettingId::EmulateVendors);
  if (emulated.empty()) return "unknown";
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::vector<std::string> names;
  const hetccl::Status expanded = hetccl::expandRankList(emulated, size, "HETCCL_EMULATE_VENDORS", &names);
  if (!expanded.isOk()) {
    *error = expanded.message();
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
