// Byte counts as users write them, in settings (HETCCL_CHUNK_BYTES=2M) and on the tools'
// command lines (hetccl-perf -b 8 -e 128M): one grammar everywhere.
#pragma once

#include <cstddef>
#include <string>

namespace hetccl {

// Parses a whole decimal number with an optional binary suffix K, M or G (either case) and an
// optional B: "4096", "512K", "2M", "8MB", "1g".  False on anything else (signs, spaces,
// fractions, overflow) and *bytes is left unchanged.
bool parseByteSize(const std::string& text, size_t* bytes);

}  // namespace hetccl
