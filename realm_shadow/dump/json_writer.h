// realm_shadow/dump/json_writer.h - the JSON writer of DumpToJson, for
// every JSON the project writes (the dump's, the replay's).
//
// Layer 4.  Appends to a string; commas and key separators are placed by the
// writer.  Every string is escaped and invalid UTF-8 becomes U+FFFD, so the
// output is always valid JSON whatever a program or a log named things.
// Numbers: unsigned integers exact, offsets that may be kNoOffset as null,
// doubles with 6 significant digits (non-finite: null).  Ids go out as hex
// strings (HexId): Realm ids exceed 2^53.
#ifndef REALM_SHADOW_DUMP_JSON_WRITER_H_
#define REALM_SHADOW_DUMP_JSON_WRITER_H_

#include <cinttypes>
#include <cmath>
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
    std::snprintf(buf, sizeof buf, "%" PRIu64, v);
    out_ += buf;
  }
  // An offset that may be "none" (kNoOffset): null then.
  void Offset(uint64_t v) {
    if (v == kNoOffset) {
      Null();
    } else {
      Uint(v);
    }
  }
  void HexId(uint64_t v) { String(realm_shadow::HexId(v)); }
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
  void Escape(const char* s, size_t n) {
    out_ += '"';
    size_t i = 0;
    while (i < n) {
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

#endif  // REALM_SHADOW_DUMP_JSON_WRITER_H_
