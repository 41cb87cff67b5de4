// Left-aligned columns sized to their widest cell, for hetccl-info's tables: the values
// (host names, NIC lists, island names) vary too much for fixed widths.
#pragma once

#include <string>
#include <vector>

namespace hetccl_info {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void addRow(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  // Every line starts with `indent`; trailing blanks are trimmed.
  std::string render(const std::string& indent) const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace hetccl_info
