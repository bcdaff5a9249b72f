// tests/common/contains_text.h - whether a text (a report, a command's
// output, a log) holds a part, as a GoogleTest assertion whose failure
// prints the part and the whole text:
//   EXPECT_TRUE(ContainsText(report, "now: fragmentation"));
#ifndef REALM_SHADOW_TESTS_COMMON_CONTAINS_TEXT_H_
#define REALM_SHADOW_TESTS_COMMON_CONTAINS_TEXT_H_

#include <string>

#include <gtest/gtest.h>

namespace realm_shadow::testing {

inline ::testing::AssertionResult ContainsText(const std::string& text,
                                               const std::string& part) {
  if (text.find(part) != std::string::npos)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "no \"" << part << "\" in:\n"
                                       << text;
}

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_COMMON_CONTAINS_TEXT_H_
