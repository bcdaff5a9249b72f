// The JSON writer (json_writer.h): escaping, exact integers, doubles.
#include "realm_shadow/dump/internal/json_writer.h"

#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "realm_shadow/analysis/snapshot.h"

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

void JsonWriter::Key(std::string_view key) {
  Comma();
  Escape(key);
  out_ += ':';
  after_key_ = true;
}

void JsonWriter::Uint(uint64_t v) {
  Comma();
  if (v <= kLargestJsonNumber) {
    absl::StrAppend(&out_, v);
  } else {
    absl::StrAppend(&out_, "\"", v, "\"");
  }
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
  Comma();
  uint64_t scale = 1;
  for (int i = 0; i < digits; ++i) scale *= 10;
  const uint64_t magnitude =
      value < 0 ? ~static_cast<uint64_t>(value) + 1 : static_cast<uint64_t>(value);
  if (value < 0) out_ += '-';
  absl::StrAppend(&out_, magnitude / scale);
  if (digits == 0) return;
  const std::string fraction = absl::StrCat(magnitude % scale);
  out_ += '.';
  out_.append(static_cast<size_t>(digits) - fraction.size(), '0');
  out_ += fraction;
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
