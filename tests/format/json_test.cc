// tests/format/json_test.cc - DumpToJson: valid JSON whatever the names hold,
// and the fields docs/json-schema.md promises.
#include <cstdint>
#include <limits>
#include <string>

#include "gtest/gtest.h"
#include "realm_shadow/format/dump.h"
#include "realm_shadow/format/json_writer.h"
#include "realm_shadow/page/html_page.h"
#include "tests/common/contains_text.h"
#include "tests/format/sample_dump.h"

namespace realm_shadow {
namespace {

using testing::ContainsText;

// A strict RFC 8259 checker: returns the offset of the first error, or
// npos when `text` is exactly one JSON value (plus whitespace).
class JsonChecker {
 public:
  explicit JsonChecker(const std::string& text) : s_(text) {}
  size_t Check() {
    Ws();
    if (!Value()) return i_;
    Ws();
    return i_ == s_.size() ? std::string::npos : i_;
  }

 private:
  bool Value() {
    if (i_ >= s_.size()) return false;
    switch (s_[i_]) {
      case '{':
        return Object();
      case '[':
        return Array();
      case '"':
        return String();
      case 't':
        return Word("true");
      case 'f':
        return Word("false");
      case 'n':
        return Word("null");
      default:
        return Number();
    }
  }
  bool Object() { return Sequence('}', &JsonChecker::Member); }
  bool Array() { return Sequence(']', &JsonChecker::Value); }
  // An object's or an array's body after its opening bracket: no items, or
  // items separated by commas, then `close`.
  bool Sequence(char close, bool (JsonChecker::*item)()) {
    ++i_;
    Ws();
    if (Peek(close)) return ++i_, true;
    for (;;) {
      Ws();
      if (!(this->*item)()) return false;
      Ws();
      if (Peek(close)) return ++i_, true;
      if (!Peek(',')) return false;
      ++i_;
    }
  }
  bool Member() {
    if (!Peek('"') || !String()) return false;
    Ws();
    if (!Peek(':')) return false;
    ++i_;
    Ws();
    return Value();
  }
  bool String() {
    ++i_;
    while (i_ < s_.size()) {
      const unsigned char c = s_[i_];
      if (c == '"') return ++i_, true;
      if (c < 0x20) return false;
      if (c == '\\') {
        ++i_;
        if (i_ >= s_.size()) return false;
        const char e = s_[i_];
        if (e == 'u') {
          for (int k = 1; k <= 4; ++k) {
            if (i_ + k >= s_.size() ||
                !isxdigit(static_cast<unsigned char>(s_[i_ + k]))) {
              return false;
            }
          }
          i_ += 5;
          continue;
        }
        if (std::string("\"\\/bfnrt").find(e) == std::string::npos)
          return false;
        ++i_;
        continue;
      }
      if (c >= 0x80) {  // well-formed UTF-8 only
        int len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
        if (len == 0 || c > 0xF4 || i_ + len > s_.size()) return false;
        for (int k = 1; k < len; ++k) {
          if ((static_cast<unsigned char>(s_[i_ + k]) & 0xC0) != 0x80)
            return false;
        }
        i_ += len;
        continue;
      }
      ++i_;
    }
    return false;
  }
  bool Number() {
    const size_t start = i_;
    if (Peek('-')) ++i_;
    if (Peek('0')) {
      ++i_;
    } else if (i_ < s_.size() && s_[i_] >= '1' && s_[i_] <= '9') {
      while (i_ < s_.size() && isdigit(static_cast<unsigned char>(s_[i_])))
        ++i_;
    } else {
      return false;
    }
    if (Peek('.')) {
      ++i_;
      if (i_ >= s_.size() || !isdigit(static_cast<unsigned char>(s_[i_])))
        return false;
      while (i_ < s_.size() && isdigit(static_cast<unsigned char>(s_[i_])))
        ++i_;
    }
    if (Peek('e') || Peek('E')) {
      ++i_;
      if (Peek('+') || Peek('-')) ++i_;
      if (i_ >= s_.size() || !isdigit(static_cast<unsigned char>(s_[i_])))
        return false;
      while (i_ < s_.size() && isdigit(static_cast<unsigned char>(s_[i_])))
        ++i_;
    }
    return i_ > start;
  }
  bool Word(const char* w) {
    const std::string word(w);
    if (s_.compare(i_, word.size(), word) != 0) return false;
    i_ += word.size();
    return true;
  }
  bool Peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  void Ws() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\n' ||
                              s_[i_] == '\r' || s_[i_] == '\t')) {
      ++i_;
    }
  }

  const std::string& s_;
  size_t i_ = 0;
};

::testing::AssertionResult ValidJson(const std::string& json) {
  const size_t at = JsonChecker(json).Check();
  if (at == std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "invalid JSON at byte " << at << ": ..."
         << json.substr(at < 40 ? 0 : at - 40, 80) << "...";
}

TEST(JsonChecker, RejectsWhatItShould) {
  for (const char* bad : {"", "{", "{\"a\":}", "[1,]", "\"\x01\"", "01",
                          "{\"a\" 1}", "\"\\x\"", "\"\xff\"", "[] []"}) {
    EXPECT_FALSE(ValidJson(bad)) << bad;
  }
  for (const char* good :
       {"{}", "[]", "{\"a\":[1,-2.5e3,true,null]}", "\"\\u00e9\xc3\xa9\""}) {
    EXPECT_TRUE(ValidJson(good)) << good;
  }
}

TEST(DumpJson, ValidAndEscaped) {
  const std::string json = DumpToJson(testing_dump::SampleDump());
  ASSERT_TRUE(ValidJson(json));
  // Top level.
  EXPECT_EQ(
      json.rfind("{\"format\":\"realm-shadow\",\"version\":2,\"node\":3,", 0),
      0u)
      << json.substr(0, 100);
  EXPECT_TRUE(ContainsText(json,
                           "\"notes\":[\"capacity of system memory unknown\","
                           "\"second \\\"note\\\"\\n\"]"));
  // Ids are hex strings; names keep their UTF-8 and escape their quotes.
  EXPECT_TRUE(
      ContainsText(json,
                   "\"id\":\"0x1e00000000000000\",\"kind\":\"framebuffer\","
                   "\"name\":\"GPU0 FB \\\"main\\\" \xce\xbb-\xe2\x82\xac\""));
  EXPECT_TRUE(ContainsText(
      json, "\"provenance\":\"stencil.py:42 \\\"halo\\\"\\t\\\\\""));
  EXPECT_TRUE(ContainsText(json, "\"regions\":\"lr[0] \xf0\x9f\x98\x80\""));
  // Control characters escaped, invalid UTF-8 replaced.
  EXPECT_TRUE(ContainsText(
      json, "\"creator\":\"task \\u0001\\u007f bad \\ufffd\\ufffd utf8\""));
}

TEST(DumpJson, Fields) {
  const std::string json = DumpToJson(testing_dump::SampleDump());
  for (const char* part : {
           // An allocation with its identity, flags and state.
           "{\"instance\":\"0x4000000000000003\",\"offset\":16384,"
           "\"size\":16384,\"alignment\":64,\"state\":\"release_ready\","
           "\"kind\":\"deferred_buffer\",\"pinned\":false,"
           "\"flags\":[\"from_redistrict\"],"
           "\"identity\":{\"creator\":",
           "\"instance\":\"0x4000000000000002\",\"offset\":8192,"
           "\"size\":4096,\"alignment\":4096,"
           "\"state\":\"release_pending\",\"kind\":\"future\","
           "\"pinned\":false,\"flags\":[\"was_deferred\"],"
           "\"identity\":null}",
           "{\"instance\":\"0x4000000000000001\",\"offset\":0,"
           "\"size\":4096,\"alignment\":256,\"state\":\"live\","
           "\"kind\":\"region_instance\",\"pinned\":true,"
           "\"flags\":[\"pinned\"],\"identity\":{\"fields\":",
           // Holes: [4K,8K), [12K,16K) and the tail [32K, 1M).
           "\"holes\":[{\"offset\":4096,\"size\":4096},"
           "{\"offset\":12288,\"size\":4096},"
           "{\"offset\":32768,\"size\":1015808}]",
           "\"stats\":{\"used\":24576,\"total_free\":1024000,"
           "\"largest_hole\":1015808,\"hole_count\":3,"
           "\"allocation_count\":3,\"fragmentation\":0.008",
           // Pending with and without a planned offset.
           "\"planned_offset\":null",
           "\"planned_offset\":65536",
           // Reservations: a range and an amount.
           "\"reservations\":[{\"id\":\"0x7\",\"offset\":524288,"
           "\"size\":65536,\"sequence\":5},{\"id\":\"0x8\","
           "\"offset\":null,\"size\":1024,\"sequence\":6}]",
           // A 1000 KiB request with 1000 KiB free in three holes, the
           // largest 992 KiB: fragmentation; releasing the 16 KiB allocation
           // at 16K joins [12K,16K) + [16K,32K) + the tail.
           "\"instance\":\"0x400000000000000b\",\"size\":1024000,"
           "\"alignment\":4096,\"eventual\":true,\"maybe_cancelled\":false,\"sequence\":41,"
           "\"identity\":{\"fields\":\"density,velocity\"",
           "\"cause\":\"fragmentation\",\"blockers\":{"
           "\"found\":true,\"fits_already\":false,"
           "\"window_offset\":12288,\"window_end\":1048576,"
           "\"placement\":12288,\"bytes_to_free\":16384,"
           "\"allocations\":[{\"instance\":\"0x4000000000000003\","
           "\"offset\":16384,\"size\":16384,"
           "\"kind\":\"deferred_buffer\",\"identity\":{",
           // The failure never requested has neither cause nor blockers.
           "\"instance\":\"0x400000000000000c\",\"size\":0,"
           "\"alignment\":4096,\"eventual\":false,\"maybe_cancelled\":false,\"sequence\":41,"
           "\"identity\":null,\"cause\":null,\"blockers\":null}",
           // Unknown capacity is null; an addressed memory has no holes.
           "\"id\":\"0x1e00000000000001\",\"kind\":\"system\","
           "\"name\":\"\",\"node\":3,\"capacity\":null,"
           "\"addressed\":false,\"sequence\":0,\"exact\":false",
           "\"capacity\":1099511627776,\"addressed\":true",
           // Counters by name; anomalies with a missing offset as null.
           "\"counters\":{\"events\":{\"allocated\":100,",
           "{\"kind\":\"overlap\",\"sequence\":17,"
           "\"instance\":\"0x4000000000000005\",\"offset\":100,"
           "\"size\":200,\"other_instance\":\"0x4000000000000001\"}",
           "\"usage_by_kind\":{\"unknown\":{\"bytes\":0,\"count\":0},"
           "\"region_instance\":{\"bytes\":4096,\"count\":1}",
       })
    EXPECT_TRUE(ContainsText(json, part));
}

// docs/json-schema.md: the write time (past 2^53 since April 1970) is an
// exact decimal string, every digit kept.
TEST(DumpJson, TheWriteTimeIsAnExactDecimalString) {
  DumpFile dump;
  dump.created_unix_ns = 1732890000123456789ull;
  EXPECT_NE(DumpToJson(dump).find("\"created_unix_ns\":\"1732890000123456789\""),
            std::string::npos)
      << DumpToJson(dump);
}

TEST(DumpJson, EmptyDump) {
  DumpFile empty;
  const std::string json = DumpToJson(empty);
  EXPECT_TRUE(ValidJson(json));
  EXPECT_EQ(json,
            "{\"format\":\"realm-shadow\",\"version\":2,\"node\":0,"
            "\"created_unix_ns\":0,\"source\":\"\",\"notes\":[],"
            "\"memories\":[],\"pools\":[]}\n");
}

TEST(DumpJson, Pools) {
  const std::string json = DumpToJson(testing_dump::SampleDump());
  EXPECT_TRUE(ContainsText(json,
                           "\"pools\":[{\"memory\":\"0x1e00000000000000\","
                           "\"pool\":\"0x4000000000000001\","
                           "\"backing_instance\":\"0x4000000000000001\","
                           "\"offset\":0,\"size\":4096,\"suballocations\":["
                           "{\"instance\":\"0x5000000000000001\",\"offset\":0,"
                           "\"size\":1024,\"identity\":{\"creator\":"))
      << json.substr(json.find("\"pools\""));
}

// The one JSON writer's rules (docs/json-schema.md, Conventions), as the
// dump's JSON and the page's data block both write them.  Before there was
// one writer, the page wrote a count above 2^53 as null and a non-finite
// number as 0, and the dump JSON wrote the count as a number that
// JavaScript reads rounded.
TEST(JsonWriter, ExactIntegersNullForNonFiniteAndSafeStrings) {
  for (const auto context : {JsonWriter::Context::kDocument,
                             JsonWriter::Context::kScriptElement}) {
    std::string out;
    JsonWriter w(&out, context);
    w.BeginArray();
    w.Uint(kLargestJsonNumber);
    w.Uint(kLargestJsonNumber + 1);
    w.Uint(UINT64_MAX);
    w.Int(-5);
    w.Int(INT64_MIN);
    w.Offset(kNoOffset);
    w.Double(0.125);
    w.Double(std::numeric_limits<double>::quiet_NaN());
    w.Double(std::numeric_limits<double>::infinity());
    w.String("a</script>&\xff");
    w.EndArray();
    ASSERT_TRUE(ValidJson(out)) << out;
    const std::string numbers =
        "[9007199254740992,\"9007199254740993\",\"18446744073709551615\",-5,"
        "\"-9223372036854775808\",null,0.125,null,null,";
    EXPECT_EQ(out.substr(0, numbers.size()), numbers) << out;
    if (context == JsonWriter::Context::kDocument) {
      EXPECT_EQ(out.substr(numbers.size()), "\"a</script>&\\ufffd\"]");
    } else {
      EXPECT_EQ(out.substr(numbers.size()),
                "\"a\\u003c/script\\u003e\\u0026\\ufffd\"]");
    }
  }
}

// Fixed-point numbers (the trace's microseconds from nanoseconds) are
// exact, zeros of the fraction kept, negative ones included.
TEST(JsonWriter, DecimalIsExact) {
  std::string out;
  JsonWriter w(&out);
  w.BeginArray();
  w.Decimal(1234567, 3);
  w.Decimal(-5, 3);
  w.Decimal(1000, 3);
  w.Decimal(42, 0);
  w.Decimal(INT64_MIN, 3);
  w.EndArray();
  ASSERT_TRUE(ValidJson(out)) << out;
  EXPECT_EQ(out, "[1234.567,-0.005,1.000,42,-9223372036854775.808]");
}

// Both renderings of one dump say the same about a count past 2^53: the
// dump JSON and the page's data block (a capacity of 2^60 bytes).
TEST(JsonWriter, TheDumpJsonAndThePageAgreeOnLargeCounts) {
  DumpFile dump;
  dump.memories.emplace_back();
  dump.memories.back().capacity = uint64_t{1} << 60;
  const std::string exact = "\"capacity\":\"1152921504606846976\"";
  EXPECT_NE(DumpToJson(dump).find(exact), std::string::npos) << DumpToJson(dump);
  const std::string page = RenderHtmlMap({dump});
  EXPECT_TRUE(ContainsText(page, exact));
}

// The records both renderings share (dump/internal/json_records.h) read
// alike, field for field and in the same order: a pending request, a
// reservation of an amount (offset null), a failure and the memory's
// summary, each as the dump's JSON writes it and as the page's data block
// does.
TEST(JsonWriter, TheDumpJsonAndThePageWriteTheSharedRecordsAlike) {
  const DumpFile dump = testing_dump::SampleDump();
  const std::string json = DumpToJson(dump);
  const std::string page = RenderHtmlMap({dump});
  for (const std::string record : {
           "{\"instance\":\"0x4000000000000009\",\"size\":2097152,"
           "\"alignment\":256,\"planned_offset\":null,\"sequence\":40,",
           "{\"id\":\"0x8\",\"offset\":null,\"size\":1024,\"sequence\":6}",
           "{\"instance\":\"0x400000000000000b\",\"size\":1024000,"
           "\"alignment\":4096,\"eventual\":true,\"maybe_cancelled\":false,\"sequence\":41,",
           "\"used\":24576,\"total_free\":",
       }) {
    EXPECT_TRUE(ContainsText(json, record)) << record << "\nnot in\n" << json;
    EXPECT_TRUE(ContainsText(page, record)) << record << "\nnot in the page";
  }
}

}  // namespace
}  // namespace realm_shadow
