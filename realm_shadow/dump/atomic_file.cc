// Atomic file writes: a unique temporary, fsync, rename.
#include "realm_shadow/dump/internal/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "realm_shadow/dump/internal/format.h"

namespace realm_shadow {

using dump_format::ErrnoText;

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

bool AtomicFile::Open(const std::string& path, std::string* error) {
  path_ = path;
  std::vector<char> name(path.begin(), path.end());
  for (const char c : std::string(".tmp.XXXXXX")) name.push_back(c);
  name.push_back('\0');
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) {
    *error = path + ": cannot create a temporary beside it: " + ErrnoText(errno);
    return false;
  }
  temp_ = name.data();
  // mkstemp makes the file private (0600); a dump is as readable as any
  // file the program writes.
  ::fchmod(fd_, 0644);
  return true;
}

void AtomicFile::Failed(const char* step, int error_number) {
  if (failed_step_ == nullptr) {
    failed_step_ = step;
    failed_errno_ = error_number;
  }
}

bool AtomicFile::Commit(std::string* error) {
  if (failed_step_ == nullptr && ::fsync(fd_) != 0) Failed("fsync", errno);
  if (::close(fd_) != 0) Failed("close", errno);
  fd_ = -1;
  if (failed_step_ == nullptr && ::rename(temp_.c_str(), path_.c_str()) != 0)
    Failed("rename", errno);
  if (failed_step_ != nullptr) {
    *error = path_ + ": " + failed_step_ + " failed: " + ErrnoText(failed_errno_);
    return false;
  }
  committed_ = true;
  return true;
}

}  // namespace realm_shadow
