#include "common/json_document.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace hetccl_apps {

std::string formatJson(const Json& document) {
  return document.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

double significant(double value, int digits) {
  if (!std::isfinite(value)) return value;
  // Through text, as printf rounds: the nearest double to the rounded decimal, which
  // nlohmann then prints in its shortest form.
  char text[64];
  std::snprintf(text, sizeof text, "%.*g", digits, value);
  return std::strtod(text, nullptr);
}

Json stringOrNull(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

}  // namespace hetccl_apps
