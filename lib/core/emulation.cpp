#include "core/emulation.h"

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <vector>

#include "base/settings_reader.h"

namespace hetccl {

namespace {

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::stringstream stream(text);
  std::string part;
  while (std::getline(stream, part, separator)) parts.push_back(part);
  return parts;
}

bool parseNumberWithUnit(const std::string& text, double* number, std::string* unit) {
  char* end = nullptr;
  *number = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *number < 0) return false;
  *unit = end;
  return true;
}

bool parseBandwidth(const std::string& text, double* bytesPerSecond) {
  double value = 0;
  std::string unit;
  if (!parseNumberWithUnit(text, &value, &unit)) return false;
  static const struct { const char* name; double factor; } units[] = {
      {"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12},
      {"Kb/s", 125}, {"Mb/s", 125e3}, {"Gb/s", 125e6}, {"Tb/s", 125e9}};
  for (const auto& u : units)
    if (unit == u.name) {
      *bytesPerSecond = value * u.factor;
      return value > 0;
    }
  return false;
}

bool parseDuration(const std::string& text, double* seconds) {
  double value = 0;
  std::string unit;
  if (!parseNumberWithUnit(text, &value, &unit)) return false;
  static const struct { const char* name; double factor; } units[] = {{"s", 1}, {"ms", 1e-3}, {"us", 1e-6}, {"ns", 1e-9}};
  for (const auto& u : units)
    if (unit == u.name) {
      *seconds = value * u.factor;
      return true;
    }
  return false;
}

}  // namespace

Status parseEmulatedLinks(const std::string& text, EmulatedLinks* links) {
  *links = EmulatedLinks{};
  for (const std::string& entry : split(text, ',')) {
    std::vector<std::string> fields = split(entry, ':');
    LinkPacing speed;
    speed.paced = true;
    if (fields.size() != 3 || !parseBandwidth(fields[1], &speed.bytesPerSecond) ||
        !parseDuration(fields[2], &speed.latencySeconds))
      return HETCCL_STATUS(Code::InvalidArgument,
                           "HETCCL_EMULATE_LINKS=%s: bad entry '%s' (expected intra|inter:BANDWIDTH:LATENCY, "
                           "e.g. inter:1GB/s:20us)", text.c_str(), entry.c_str());
    if (fields[0] == "intra") links->intraIsland = speed;
    else if (fields[0] == "inter") links->interIsland = speed;
    else
      return HETCCL_STATUS(Code::InvalidArgument, "HETCCL_EMULATE_LINKS=%s: unknown link class '%s' (intra or inter)",
                           text.c_str(), fields[0].c_str());
  }
  return Status::ok();
}

Status emulatedLinksFromSettings(EmulatedLinks* links) {
  *links = EmulatedLinks{};
  const std::string text = readText(SettingId::EmulateLinks);
  return text.empty() ? Status::ok() : parseEmulatedLinks(text, links);
}

}  // namespace hetccl
