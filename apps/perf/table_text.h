// The pieces of hetccl-perf's table that nccl-tests' layout (report.h) and --overlap's
// (overlap_report.h) share: the key columns every row starts with, the algorithm columns it
// ends with, number formats, and the precision of measured numbers in the JSON.  The header
// lines use the same formats as the rows, so they stay aligned by construction.
#pragma once

#include <cstdint>
#include <string>

#include "perf/options.h"

namespace hetccl_perf {

// size, count, type, redop, root: the columns before the measurements, kKeyWidth wide.
inline constexpr const char* kKeyColumns = "%12s  %12s  %8s  %6s  %6s";
inline constexpr int kKeyWidth = 52;
// "request" (the --algo entry, only with --algo) and "algo" (what ran): "native" is the
// longest name.
inline constexpr int kRequestWidth = 9;
inline constexpr int kAlgorithmWidth = 8;

// `text` centred in `width` columns (left-aligned when it does not fit).
std::string centered(const std::string& text, int width);
std::string rstrip(std::string s);
// Fewer decimals as times grow, so the column keeps its width (as nccl-tests does).
std::string formatTime(double us);
std::string formatWrong(int64_t wrong);  // "N/A" when not checked

// The key columns' names and units lines, each starting with "#" in place of the first space.
std::string keyColumnNames();
std::string keyColumnUnits();

bool withRequestColumn(const PerfOptions& o);
// The request column (only with --algo) and the algo column.
std::string algorithmColumns(const PerfOptions& o, const std::string& request, const std::string& algorithm);

// Measured numbers in the JSON keep nine significant digits, as the table's own precision is
// far below that.
double measured(double value);

}  // namespace hetccl_perf
