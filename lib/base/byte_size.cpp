#include "base/byte_size.h"

#include <cctype>
#include <climits>

namespace hetccl {

bool parseByteSize(const std::string& text, size_t* bytes) {
  size_t position = 0;
  unsigned long long value = 0;
  while (position < text.size() && std::isdigit(static_cast<unsigned char>(text[position]))) {
    const unsigned digit = static_cast<unsigned>(text[position] - '0');
    if (value > (ULLONG_MAX - digit) / 10) return false;
    value = value * 10 + digit;
    ++position;
  }
  if (position == 0) return false;
  unsigned long long multiplier = 1;
  if (position < text.size()) {
    switch (text[position]) {
      case 'k':
      case 'K':
        multiplier = 1ULL << 10;
        ++position;
        break;
      case 'm':
      case 'M':
        multiplier = 1ULL << 20;
        ++position;
        break;
      case 'g':
      case 'G':
        multiplier = 1ULL << 30;
        ++position;
        break;
      default: break;
    }
  }
  if (position < text.size() && (text[position] == 'B' || text[position] == 'b')) ++position;
  if (position != text.size() || value > ULLONG_MAX / multiplier || value * multiplier > SIZE_MAX) return false;
  *bytes = static_cast<size_t>(value * multiplier);
  return true;
}

}  // namespace hetccl
