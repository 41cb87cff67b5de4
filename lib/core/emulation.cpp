#include "core/emulation.h"

#include <vector>

#include "base/quantities.h"
#include "base/settings_reader.h"

namespace hetccl {

Status parseEmulatedLinks(const std::string& text, EmulatedLinks* links) {
  *links = EmulatedLinks{};
  for (const std::string& entry : splitText(text, ',')) {
    std::vector<std::string> fields = splitText(entry, ':');
    LinkPacing speed;
    speed.paced = true;
    if (fields.size() != 3 || !parseBandwidth(fields[1], &speed.bytesPerSecond) ||
        !parseDuration(fields[2], &speed.latencySeconds))
      return HETCCL_STATUS(Code::InvalidArgument,
                           "HETCCL_EMULATE_LINKS=%s: bad entry '%s' (expected intra|inter:BANDWIDTH:LATENCY, "
                           "e.g. inter:1GB/s:20us)",
                           text.c_str(), entry.c_str());
    if (fields[0] == "intra")
      links->intraIsland = speed;
    else if (fields[0] == "inter")
      links->interIsland = speed;
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
