// tests/common/temp_dir.h - a fresh directory under /tmp for one test (or
// one fixture), removed with everything in it when the object goes.
// Permissions are restored first, so a test may make it read-only.
#ifndef REALM_SHADOW_TESTS_COMMON_TEMP_DIR_H_
#define REALM_SHADOW_TESTS_COMMON_TEMP_DIR_H_

#include <stdlib.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "gtest/gtest.h"

namespace realm_shadow::testing {

class TempDir {
 public:
  // The directory is /tmp/<prefix>-XXXXXX.
  explicit TempDir(const std::string& prefix = "realm-shadow-test") {
    std::string tmpl = "/tmp/" + prefix + "-XXXXXX";
    if (::mkdtemp(tmpl.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << tmpl << " failed";
      return;
    }
    path_ = tmpl;
  }
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all, ec);
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const {
    return path_ + "/" + name;
  }
  // File names in the directory, in directory order.
  std::vector<std::string> Entries() const {
    std::vector<std::string> out;
    for (const auto& e : std::filesystem::directory_iterator(path_))
      out.push_back(e.path().filename().string());
    return out;
  }

 private:
  std::string path_;
};

}  // namespace realm_shadow::testing

#endif  // REALM_SHADOW_TESTS_COMMON_TEMP_DIR_H_
