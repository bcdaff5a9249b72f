// realm_shadow/dump/internal/json_writer.h - the one JSON writer: the
// dump's JSON rendering (json.cc) and the trace file (faces/trace.cc) write
// through it.
//
// Layer 4, internal.  Appends to a caller's string: commas and nesting are
// the writer's, so a caller may move the text written so far elsewhere (a
// file) and clear the string between two values to stream a large
// document.  Strings are escaped and invalid UTF-8 becomes U+FFFD, so the
// output is always valid JSON; non-finite doubles are null; integers are
// written exactly (std::to_chars).
#ifndef REALM_SHADOW_DUMP_INTERNAL_JSON_WRITER_H_
#define REALM_SHADOW_DUMP_INTERNAL_JSON_WRITER_H_

#include <charconv>
#include <cinttypes>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "realm_shadow/analysis/snapshot.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(4);

class JsonWriter {
 public:
  explicit JsonWriter(std::string* out) : out_(*out) {}

  void Raw(const char* s) { out_ += s; }
  void Key(const char* key) { Key(key, std::char_traits<char>::length(key)); }
  void Key(const std::string& key) { Key(key.data(), key.size()); }
  void Key(const char* key, size_t n) {
    Comma();
    Escape(key, n);
    out_ += ':';
    after_key_ = true;
  }
  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }

  void Uint(uint64_t v) {
    Comma();
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  }
  void Int(int64_t v) {
    Comma();
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
  }
  // value / 10^digits written exactly, without a float: Decimal(1234567, 3)
  // is 1234.567 (nanoseconds as microseconds), Decimal(-5, 3) is -0.005.
  void Decimal(int64_t value, int digits) {
    Comma();
    uint64_t scale = 1;
    for (int i = 0; i < digits; ++i) scale *= 10;
    const bool negative = value < 0;
    const uint64_t magnitude =
        negative ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value);
    if (negative) out_ += '-';
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, magnitude / scale).ptr);
    if (digits == 0) return;
    // The fraction, zero-padded to `digits`, right-aligned in buf.
    uint64_t fraction = magnitude % scale;
    char* end = buf + sizeof buf;
    char* p = end;
    for (int i = 0; i < digits && p > buf + 1; ++i) {
      *--p = static_cast<char>('0' + fraction % 10);
      fraction /= 10;
    }
    *--p = '.';
    out_.append(p, end);
  }
  // An offset that may be "none" (kNoOffset): null then.
  void Offset(uint64_t v) {
    if (v == kNoOffset) {
      Null();
    } else {
      Uint(v);
    }
  }
  // "0x..." as realm_shadow::HexId writes it, without a string.
  void HexId(uint64_t v) {
    Comma();
    char buf[24] = {'"', '0', 'x'};
    char* end = std::to_chars(buf + 3, buf + sizeof buf - 1, v, 16).ptr;
    *end++ = '"';
    out_.append(buf, end);
  }
  // A value already in JSON form (the caller's to get right): what a
  // writer of many alike values renders once and reuses.
  void Preformatted(const char* json, size_t n) {
    Comma();
    out_.append(json, n);
  }
  void Bool(bool b) {
    Comma();
    out_ += b ? "true" : "false";
  }
  void Null() {
    Comma();
    out_ += "null";
  }
  void Double(double d) {
    Comma();
    if (!std::isfinite(d)) {
      out_ += "null";
      return;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", d);
    out_ += buf;
  }
  void String(const std::string& s) { String(s.data(), s.size()); }
  void String(const char* s) { String(s, std::char_traits<char>::length(s)); }
  void String(const char* s, size_t n) {
    Comma();
    Escape(s, n);
  }

 private:
  static bool Plain(unsigned char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  }
  void Escape(const char* s, size_t n) {
    out_ += '"';
    size_t i = 0;
    while (i < n) {
      // A run of characters that stand for themselves, appended at once.
      size_t run = i;
      while (run < n && Plain(static_cast<unsigned char>(s[run]))) ++run;
      if (run > i) {
        out_.append(s + i, run - i);
        i = run;
        continue;
      }
      const unsigned char c = static_cast<unsigned char>(s[i]);
      if (c < 0x80) {
        switch (c) {
          case '"':
            out_ += "\\\"";
            break;
          case '\\':
            out_ += "\\\\";
            break;
          case '\b':
            out_ += "\\b";
            break;
          case '\f':
            out_ += "\\f";
            break;
          case '\n':
            out_ += "\\n";
            break;
          case '\r':
            out_ += "\\r";
            break;
          case '\t':
            out_ += "\\t";
            break;
          default:
            if (c < 0x20 || c == 0x7f) {
              char buf[8];
              std::snprintf(buf, sizeof buf, "\\u%04x", c);
              out_ += buf;
            } else {
              out_ += static_cast<char>(c);
            }
        }
        ++i;
        continue;
      }
      const size_t len = Utf8SequenceLength(s + i, n - i);
      if (len == 0) {
        out_ += "\\ufffd";
        ++i;
      } else {
        out_.append(s + i, len);
        i += len;
      }
    }
    out_ += '"';
  }

  // Length of a well-formed UTF-8 sequence at p (RFC 3629: no overlongs, no
  // surrogates, nothing above U+10FFFF), or 0.
  static size_t Utf8SequenceLength(const char* p, size_t left) {
    const auto b = [p](size_t i) { return static_cast<unsigned char>(p[i]); };
    const unsigned char c = b(0);
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return 0;
    }
    if (left < len) return 0;
    if (b(1) < lo || b(1) > hi) return 0;
    for (size_t i = 2; i < len; ++i) {
      if (b(i) < 0x80 || b(i) > 0xBF) return 0;
    }
    return len;
  }

  void Comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (need_comma_) out_ += ',';
    need_comma_ = true;
  }
  void Open(char c) {
    Comma();
    out_ += c;
    need_comma_ = false;
  }
  void Close(char c) {
    out_ += c;
    need_comma_ = true;
  }

  std::string& out_;
  bool need_comma_ = false;
  bool after_key_ = false;
};

}  // namespace realm_shadow

#endif  // REALM_SHADOW_DUMP_INTERNAL_JSON_WRITER_H_
