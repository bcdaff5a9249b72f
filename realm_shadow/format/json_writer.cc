// The JSON writer (json_writer.h): escaping, exact integers, doubles.
#include "realm_shadow/format/json_writer.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "realm_shadow/core/snapshot.h"

namespace realm_shadow {
namespace {

// Length of a well-formed UTF-8 sequence at the start of s (RFC 3629), or 0.
size_t Utf8SequenceLength(std::string_view s) {
  const auto b = [&s](size_t i) { return static_cast<unsigned char>(s[i]); };
  const unsigned char c = b(0);
  size_t len;
  unsigned char lo = 0x80, hi = 0xBF;  // the second byte's range
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0) lo = 0xA0;  // no overlong 3-byte forms
    if (c == 0xED) hi = 0x9F;  // no surrogates
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0) lo = 0x90;  // no overlong 4-byte forms
    if (c == 0xF4) hi = 0x8F;  // nothing past U+10FFFF
  } else {
    return 0;
  }
  if (s.size() < len || b(1) < lo || b(1) > hi) return 0;
  for (size_t i = 2; i < len; ++i)
    if (b(i) < 0x80 || b(i) > 0xBF) return 0;
  return len;
}

}  // namespace

bool JsonWriter::IsShortPlain(std::string_view s) const {
  if (s.size() > kShortText) return false;
  for (char c : s)
    if (!NeedsNoEscape(c)) return false;
  return true;
}

char* JsonWriter::QuotedInto(char* at, std::string_view s) {
  *at++ = '"';
  at = std::copy(s.begin(), s.end(), at);
  *at++ = '"';
  return at;
}

char* JsonWriter::UintInto(char* at, uint64_t v) {
  const bool quoted = v > kLargestJsonNumber;
  if (quoted) *at++ = '"';
  at = std::to_chars(at, at + 20, v).ptr;
  if (quoted) *at++ = '"';
  return at;
}

char* JsonWriter::DecimalInto(char* at, int64_t value, int digits) {
  uint64_t scale = 1;
  for (int i = 0; i < digits; ++i) scale *= 10;
  const uint64_t magnitude =
      value < 0 ? ~static_cast<uint64_t>(value) + 1 : static_cast<uint64_t>(value);
  if (value < 0) *at++ = '-';
  at = std::to_chars(at, at + 20, magnitude / scale).ptr;
  if (digits == 0) return at;
  char fraction[20];
  char* end = std::to_chars(fraction, fraction + sizeof fraction,
                            magnitude % scale).ptr;
  *at++ = '.';
  at = std::fill_n(at, static_cast<size_t>(digits) - (end - fraction), '0');
  return std::copy(fraction, end, at);
}

void JsonWriter::Key(std::string_view key) {
  if (IsShortPlain(key)) {
    char text[kShortText + 4];
    char* p = QuotedInto(CommaInto(text), key);
    *p++ = ':';
    out_.append(text, static_cast<size_t>(p - text));
  } else {
    Comma();
    Escape(key);
    out_ += ':';
  }
  after_key_ = true;
}

void JsonWriter::Uint(uint64_t v) {
  char text[kNumberText];
  char* p = UintInto(CommaInto(text), v);
  out_.append(text, static_cast<size_t>(p - text));
}

void JsonWriter::Uint(std::string_view key, uint64_t v) {
  if (!IsShortPlain(key)) return Key(key), Uint(v);
  char text[kShortText + 4 + kNumberText];
  char* p = QuotedInto(CommaInto(text), key);
  *p++ = ':';
  p = UintInto(p, v);
  out_.append(text, static_cast<size_t>(p - text));
}

void JsonWriter::Decimal(std::string_view key, int64_t v, int digits) {
  if (!IsShortPlain(key)) return Key(key), Decimal(v, digits);
  char text[kShortText + 4 + kNumberText];
  char* p = QuotedInto(CommaInto(text), key);
  *p++ = ':';
  p = DecimalInto(p, v, digits);
  out_.append(text, static_cast<size_t>(p - text));
}

void JsonWriter::String(std::string_view key, std::string_view v) {
  if (!IsShortPlain(key) || !IsShortPlain(v)) return Key(key), String(v);
  char text[2 * kShortText + 6];
  char* p = QuotedInto(CommaInto(text), key);
  *p++ = ':';
  p = QuotedInto(p, v);
  out_.append(text, static_cast<size_t>(p - text));
}

void JsonWriter::Int(int64_t v) {
  if (v >= 0) return Uint(static_cast<uint64_t>(v));
  Comma();
  // Magnitudes past 2^53 as strings, as for Uint (two's complement: the
  // magnitude of INT64_MIN fits a uint64_t).
  const uint64_t magnitude = ~static_cast<uint64_t>(v) + 1;
  if (magnitude <= kLargestJsonNumber) {
    absl::StrAppend(&out_, v);
  } else {
    absl::StrAppend(&out_, "\"", v, "\"");
  }
}

void JsonWriter::Offset(uint64_t v) {
  if (v == kNoOffset) return Null();
  Uint(v);
}

void JsonWriter::Double(double v) {
  if (!std::isfinite(v)) return Null();
  Comma();
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", v);
  out_ += buffer;
}

void JsonWriter::Decimal(int64_t value, int digits) {
  char text[kNumberText];
  char* p = DecimalInto(CommaInto(text), value, digits);
  out_.append(text, static_cast<size_t>(p - text));
}

void JsonWriter::Bool(bool v) {
  Comma();
  out_ += v ? "true" : "false";
}

void JsonWriter::Null() {
  Comma();
  out_ += "null";
}

void JsonWriter::String(std::string_view s) {
  if (IsShortPlain(s)) {
    char text[kShortText + 3];
    char* p = QuotedInto(CommaInto(text), s);
    out_.append(text, static_cast<size_t>(p - text));
    return;
  }
  Comma();
  Escape(s);
}

void JsonWriter::HexId(uint64_t id) { String(realm_shadow::HexId(id)); }

std::string* JsonWriter::BeginRawString() {
  Comma();
  out_ += '"';
  return &out_;
}

void JsonWriter::Escape(std::string_view s) {
  out_ += '"';
  size_t i = 0;
  while (i < s.size()) {
    // The run of printable ASCII that needs no escape, appended at once:
    // every key and nearly every value is one run.
    size_t plain = i;
    while (plain < s.size() && NeedsNoEscape(s[plain])) ++plain;
    out_.append(s.data() + i, plain - i);
    i = plain;
    if (i == s.size()) break;
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const size_t len = Utf8SequenceLength(s.substr(i));
      if (len == 0) {
        out_ += "\\ufffd";
        ++i;
      } else {
        out_.append(s.data() + i, len);
        i += len;
      }
      continue;
    }
    ++i;
    switch (c) {
      case '"': out_ += "\\\""; continue;
      case '\\': out_ += "\\\\"; continue;
      case '\b': out_ += "\\b"; continue;
      case '\f': out_ += "\\f"; continue;
      case '\n': out_ += "\\n"; continue;
      case '\r': out_ += "\\r"; continue;
      case '\t': out_ += "\\t"; continue;
      default: break;
    }
    const bool markup = c == '<' || c == '>' || c == '&';
    if (c < 0x20 || c == 0x7f || (script_ && markup)) {
      char buffer[8];
      std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
      out_ += buffer;
    } else {
      out_ += static_cast<char>(c);
    }
  }
  out_ += '"';
}

}  // namespace realm_shadow
