// The JSON the tools write (hetccl-perf -J, hetccl-info --json, hetccl-sim --json), built with
// nlohmann/json (Debian's nlohmann-json3-dev) instead of by hand: escaping, nesting and commas
// are the library's.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace hetccl_apps {

// Keys keep the order they are written in, so a document reads top-down as the tool's text
// output does (nlohmann::json would sort them).
using Json = nlohmann::ordered_json;

// The document as the tools print it: two-space indentation and a final newline.  JSON has no
// NaN or infinity: such numbers are written as null.  Bytes that are not UTF-8 (a host name or
// a path in another encoding) become U+FFFD instead of failing the whole document.
std::string formatJson(const Json& document);

// `value` rounded to `digits` significant digits: measured and predicted numbers carry no more
// precision than that, and the document stays readable ("1.57", not "1.5728640000000001").
// Non-finite values stay as they are (and print as null).
double significant(double value, int digits);

// A string, or null where it is empty (an unknown name).
Json stringOrNull(const std::string& text);

}  // namespace hetccl_apps
