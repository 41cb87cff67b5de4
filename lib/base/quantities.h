// Link speeds as users write them, in HETCCL_EMULATE_LINKS ("inter:1GB/s:20us") and in
// hetccl-sim's cluster descriptions: one grammar for both.
#pragma once

#include <string>
#include <vector>

namespace hetccl {

// A finite number > 0 followed by B/s, KB/s, MB/s, GB/s, TB/s (decimal bytes) or Kb/s, Mb/s,
// Gb/s, Tb/s (bits): "8GB/s", "200Gb/s".
bool parseBandwidth(const std::string& text, double* bytesPerSecond);
// A finite number >= 0 followed by s, ms, us or ns: "20us".
bool parseDuration(const std::string& text, double* seconds);
// "a:b::c" split at ':' -> {a, b, "", c}; an empty text gives no parts.
std::vector<std::string> splitText(const std::string& text, char separator);

}  // namespace hetccl
