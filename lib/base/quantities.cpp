#include "base/quantities.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace hetccl {

namespace {

struct Unit {
  const char* name;
  double factor;
};
constexpr Unit kBandwidthUnits[] = {{"B/s", 1},    {"KB/s", 1e3},   {"MB/s", 1e6},   {"GB/s", 1e9},  {"TB/s", 1e12},
                                    {"Kb/s", 125}, {"Mb/s", 125e3}, {"Gb/s", 125e6}, {"Tb/s", 125e9}};
constexpr Unit kDurationUnits[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};

// A finite number >= 0 followed by one of `units`, finite in the base unit too: "1e300TB/s"
// would otherwise become an infinite bandwidth, a link that costs nothing (found by fuzzing).
template <size_t N>
bool parseQuantity(const std::string& text, const Unit (&units)[N], double* value) {
  char* end = nullptr;
  errno = 0;
  const double number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || errno != 0 || !std::isfinite(number) || number < 0) return false;
  for (const Unit& unit : units)
    if (std::string(end) == unit.name) {
      if (!std::isfinite(number * unit.factor)) return false;
      *value = number * unit.factor;
      return true;
    }
  return false;
}

}  // namespace

bool parseBandwidth(const std::string& text, double* bytesPerSecond) {
  double value = 0;
  if (!parseQuantity(text, kBandwidthUnits, &value) || value <= 0) return false;
  *bytesPerSecond = value;
  return true;
}

bool parseDuration(const std::string& text, double* seconds) { return parseQuantity(text, kDurationUnits, seconds); }

std::vector<std::string> splitText(const std::string& text, char separator) {
  std::vector<std::string> parts;
  if (text.empty()) return parts;
  size_t start = 0;
  while (true) {
    const size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return parts;
    start = end + 1;
  }
}

}  // namespace hetccl
