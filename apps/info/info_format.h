// hetccl-info's two outputs of one InfoReport: text for people, JSON for scripts (same
// content; JSON keeps numbers as numbers and unknowns as null).
#pragma once

#include <string>

#include "info/info_report.h"

namespace hetccl_info {

std::string formatText(const InfoReport& report);
std::string formatJson(const InfoReport& report);

}  // namespace hetccl_info
