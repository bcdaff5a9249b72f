// tests/render/failure_report_test.cc - the failure's text
// (render/failure_report.h) on pictures built by hand.
#include "realm_shadow/render/failure_report.h"

#include <string>

#include <gtest/gtest.h>

#include "tests/analysis/snapshot_builder.h"

namespace realm_shadow {
namespace {

using testing::Alloc;
using testing::MakeSnapshot;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// The failure report left out an identity its picture lacked; the report
// named it.  Both name it now.
TEST(FormatFailureReport, NamesAnIdentityThePictureLacks) {
  Snapshot s = MakeSnapshot(1024, {Alloc(0, 512, 0x41), Alloc(768, 256, 0x42)});
  Failure f;
  f.instance = 0x43;
  f.size = 384;
  f.alignment = 1;
  f.identity = 5;
  s.failures.push_back(f);
  const std::string report = FormatFailureReport(s, 0x43);
  EXPECT_TRUE(Contains(report, " identity#5\n")) << report;
}

}  // namespace
}  // namespace realm_shadow
