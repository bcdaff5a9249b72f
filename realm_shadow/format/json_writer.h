// realm_shadow/format/json_writer.h - the one JSON writer: the dump's
// JSON rendering (json.cc, docs/json-schema.md), the memory map page's data
// block (page/html_page.cc), the trace file (render/trace.cc) and the
// replay report (whatif/report.cc) all write through it, so that they
// cannot disagree on a number or a string.
//
// Layer format.  What it guarantees about every document it writes:
//  - Valid JSON (RFC 8259), whatever the strings hold: quotes, backslashes
//    and control characters are escaped, and bytes that are not well-formed
//    UTF-8 (RFC 3629: no overlongs, no surrogates, nothing past U+10FFFF)
//    become U+FFFD.
//  - Integers are exact.  A JSON number is exact in every parser only up to
//    2^53 (JavaScript and most libraries read numbers as doubles), so an
//    unsigned integer up to 2^53 is written as a number and a larger one as
//    a string of its exact decimal digits ("18014398509481985").  A reader
//    never gets a silently rounded count.
//  - Non-finite doubles (NaN, infinities) are written as null; finite ones
//    with 6 significant digits ("%.6g").
//  - In Context::kScriptElement (the page's <script type="application/json">
//    element), '<', '>' and '&' are escaped as \u003c, \u003e, \u0026 too,
//    so that no "</script" can end the element early.
//  - Decimal writes a fixed-point number exactly, without a float.
// Cost: appends to one std::string; no other allocation.  A key, a number,
// a string of at most 64 printable ASCII bytes, or a key and such a number
// or string together (Uint(key, v), String(key, v), Decimal(key, ...)), is
// one append, its comma included: small appends are most of what a large
// document costs (a trace of 10^6 lives makes about 10^7).  Commas and
// nesting are the writer's state, not the string's: a caller may move the
// text written so far elsewhere (a file) and clear the string between two
// values, to stream a large document (the trace does, per 1 MiB).
#ifndef REALM_SHADOW_FORMAT_JSON_WRITER_H_
#define REALM_SHADOW_FORMAT_JSON_WRITER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(format);

// The largest integer written as a JSON number: 2^53.
inline constexpr uint64_t kLargestJsonNumber = uint64_t{1} << 53;

class JsonWriter {
 public:
  enum class Context { kDocument, kScriptElement };
  explicit JsonWriter(std::string* out, Context context = Context::kDocument)
      : out_(*out), script_(context == Context::kScriptElement) {}

  void BeginObject() { Open('{'); }
  void EndObject() { Close('}'); }
  void BeginArray() { Open('['); }
  void EndArray() { Close(']'); }
  void Key(std::string_view key);

  // Values (in an array, or after Key).
  void Uint(uint64_t v);
  void Int(int64_t v);
  void Offset(uint64_t v);  // kNoOffset ("none") as null, else Uint
  void Double(double v);
  // value / 10^digits written exactly (digits <= 18): Decimal(1234567, 3)
  // is 1234.567 (nanoseconds as microseconds), Decimal(-5, 3) is -0.005.
  void Decimal(int64_t value, int digits);
  void Bool(bool v);
  void Null();
  void String(std::string_view s);
  void HexId(uint64_t id);  // "0x..." (snapshot.h HexId)

  // Key and value in one call: most of a document is flat fields.
  void Uint(std::string_view key, uint64_t v);
  void Int(std::string_view key, int64_t v) { Key(key), Int(v); }
  void Offset(std::string_view key, uint64_t v) { Key(key), Offset(v); }
  // A number that may not be known (a capacity the log never stated):
  // null when !known.
  void UintOrNull(std::string_view key, bool known, uint64_t v) {
    if (known) return Uint(key, v);
    Key(key), Null();
  }
  void Double(std::string_view key, double v) { Key(key), Double(v); }
  void Decimal(std::string_view key, int64_t v, int digits);
  void Bool(std::string_view key, bool v) { Key(key), Bool(v); }
  void String(std::string_view key, std::string_view v);
  void HexId(std::string_view key, uint64_t id) { Key(key), HexId(id); }

  // key: [{...}, ...], one object per item, write(item) filling each.
  template <typename Range, typename Write>
  void ObjectArray(std::string_view key, const Range& items, Write write) {
    Key(key);
    BeginArray();
    for (const auto& item : items) {
      BeginObject();
      write(item);
      EndObject();
    }
    EndArray();
  }

  // A string value whose characters the caller appends to the returned
  // buffer itself (bulk base64: nothing in it needs escaping), ended by
  // EndRawString.
  std::string* BeginRawString();
  void EndRawString() { out_ += '"'; }

  // A value already in JSON form (the caller's to get right): what a
  // writer of many alike values renders once and reuses.
  void Preformatted(const char* json, size_t n) {
    Comma();
    out_.append(json, n);
  }

 private:
  static constexpr size_t kShortText = 64;
  // Comma, two quotes, 20 digits; or sign, 20 digits, point, 18 digits.
  static constexpr size_t kNumberText = 48;
  void Escape(std::string_view s);
  // At most kShortText bytes, none to escape: written in one piece.
  bool IsShortPlain(std::string_view s) const;
  // The pieces of the one-append writes, at `at`; they return the end.
  static char* QuotedInto(char* at, std::string_view s);  // s short, plain
  static char* UintInto(char* at, uint64_t v);
  static char* DecimalInto(char* at, int64_t value, int digits);
  bool NeedsNoEscape(char c) const {
    const auto u = static_cast<unsigned char>(c);
    return u >= 0x20 && u < 0x7f && c != '"' && c != '\\' &&
           !(script_ && (c == '<' || c == '>' || c == '&'));
  }
  void Comma() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (need_comma_) out_ += ',';
    need_comma_ = true;
  }
  // Comma, for a caller that builds its text in a buffer first: writes the
  // comma (if one is due) at `at` and returns where the text goes on.
  char* CommaInto(char* at) {
    if (after_key_) {
      after_key_ = false;
      return at;
    }
    if (need_comma_) *at++ = ',';
    need_comma_ = true;
    return at;
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
  const bool script_;
  bool need_comma_ = false;
  bool after_key_ = false;
};

}  // namespace realm_shadow

#endif  // REALM_SHADOW_FORMAT_JSON_WRITER_H_
