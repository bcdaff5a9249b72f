#include "realm_shadow/faces/human_size.h"

#include <cctype>

namespace realm_shadow {
namespace {

std::string Quote(std::string_view text) {
  return "'" + std::string(text) + "'";
}

}  // namespace

bool ParseHumanSize(std::string_view text, uint64_t* bytes,
                    std::string* error) {
  size_t i = 0;
  while (i < text.size() && text[i] == ' ') ++i;
  const size_t digits_begin = i;
  uint64_t value = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const uint64_t digit = static_cast<uint64_t>(text[i] - '0');
    if (value > (UINT64_MAX - digit) / 10) {
      *error = Quote(text) + ": larger than 2^64 - 1 bytes";
      return false;
    }
    value = value * 10 + digit;
    ++i;
  }
  if (i == digits_begin) {
    *error = Quote(text) + ": not a size (expected bytes such as 4096, "
                           "512MiB or 4GiB)";
    return false;
  }
  if (i < text.size() && (text[i] == '.' || text[i] == ',')) {
    *error = Quote(text) + ": fractions are not accepted; give whole bytes "
                           "or a smaller unit";
    return false;
  }
  while (i < text.size() && text[i] == ' ') ++i;
  std::string unit;
  for (; i < text.size(); ++i) {
    if (text[i] == ' ') continue;
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  }
  uint64_t scale = 1;
  if (unit.empty() || unit == "b") {
    scale = 1;
  } else {
    const char prefix = unit[0];
    std::string rest = unit.substr(1);
    int power = 0;
    switch (prefix) {
      case 'k': power = 1; break;
      case 'm': power = 2; break;
      case 'g': power = 3; break;
      case 't': power = 4; break;
      case 'p': power = 5; break;
      default: power = 0;
    }
    uint64_t base = 0;
    if (rest.empty() || rest == "b") base = 1000;
    else if (rest == "i" || rest == "ib") base = 1024;
    if (power == 0 || base == 0) {
      *error = Quote(text) + ": unknown unit '" + unit +
               "' (use B, K/M/G/T for 1000s or KiB/MiB/GiB/TiB for 1024s)";
      return false;
    }
    for (int p = 0; p < power; ++p) scale *= base;
  }
  if (value != 0 && scale > UINT64_MAX / value) {
    *error = Quote(text) + ": larger than 2^64 - 1 bytes";
    return false;
  }
  *bytes = value * scale;
  return true;
}

bool ParseHexId(std::string_view text, uint64_t* id, std::string* error) {
  std::string_view digits = text;
  if (digits.size() >= 2 && digits[0] == '0' &&
      (digits[1] == 'x' || digits[1] == 'X')) {
    digits.remove_prefix(2);
  }
  if (digits.empty() || digits.size() > 16) {
    *error = Quote(text) + ": not a 64-bit hex id (such as 1e00000000000000)";
    return false;
  }
  uint64_t value = 0;
  for (char c : digits) {
    int d;
    if (c >= '0' && c <= '9') d = c - '0';
    else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
    else {
      *error = Quote(text) + ": not a hex id (such as 0x1e00000000000000)";
      return false;
    }
    value = (value << 4) | static_cast<uint64_t>(d);
  }
  *id = value;
  return true;
}

}  // namespace realm_shadow
