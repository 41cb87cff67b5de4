#include "perf/table_text.h"

#include "common/json_document.h"
#include "common/text_format.h"

namespace hetccl_perf {

using hetccl_apps::format;

namespace {

constexpr const char* kRequestColumn = "  %7s";
constexpr const char* kAlgorithmColumn = "  %6s";

}  // namespace

std::string centered(const std::string& text, int width) {
  int left = (width - static_cast<int>(text.size())) / 2;
  if (left < 0) left = 0;
  std::string s(static_cast<size_t>(left), ' ');
  s += text;
  if (static_cast<int>(s.size()) < width) s.append(static_cast<size_t>(width) - s.size(), ' ');
  return s;
}

std::string rstrip(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s;
}

std::string formatTime(double us) {
  if (us >= 10000.0) return format("%7.0f", us);
  if (us >= 100.0) return format("%7.1f", us);
  return format("%7.2f", us);
}

std::string formatWrong(int64_t wrong) { return wrong < 0 ? "N/A" : format("%lld", static_cast<long long>(wrong)); }

std::string keyColumnNames() { return "#" + format(kKeyColumns, "size", "count", "type", "redop", "root").substr(1); }

std::string keyColumnUnits() { return "#" + format(kKeyColumns, "(B)", "(elements)", "", "", "").substr(1); }

bool withRequestColumn(const PerfOptions& o) { return !o.algorithms.empty(); }

std::string algorithmColumns(const PerfOptions& o, const std::string& request, const std::string& algorithm) {
  std::string s;
  if (withRequestColumn(o)) s += format(kRequestColumn, request.c_str());
  return s + format(kAlgorithmColumn, algorithm.c_str());
}

double measured(double value) { return hetccl_apps::significant(value, 9); }

}  // namespace hetccl_perf
