// Atomic file writes: a unique temporary, fsync, rename.
#include "realm_shadow/format/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <vector>

#include "absl/strings/str_cat.h"

namespace realm_shadow {

int WriteFully(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    if (w == 0) return ENOSPC;  // no progress and no errno: a full disk
    p += w;
    n -= static_cast<size_t>(w);
  }
  return 0;
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!committed_ && !temp_.empty()) ::unlink(temp_.c_str());
}

absl::Status AtomicFile::Open(const std::string& path) {
  path_ = path;
  std::vector<char> name(path.begin(), path.end());
  for (const char c : std::string(".tmp.XXXXXX")) name.push_back(c);
  name.push_back('\0');
  fd_ = ::mkostemp(name.data(), O_CLOEXEC);
  if (fd_ < 0) {
    return absl::ErrnoToStatus(
        errno, absl::StrCat(path, ": cannot create a temporary beside it"));
  }
  temp_ = name.data();
  // mkstemp makes the file private (0600); a dump is as readable as any
  // file the program writes.
  ::fchmod(fd_, 0644);
  return absl::OkStatus();
}

void AtomicFile::Write(std::string_view bytes) {
  if (failed_step_ != nullptr) return;
  if (const int e = WriteFully(fd_, bytes.data(), bytes.size())) Failed("write", e);
}

void AtomicFile::Failed(const char* step, int error_number) {
  if (failed_step_ == nullptr) {
    failed_step_ = step;
    failed_errno_ = error_number;
  }
}

absl::Status AtomicFile::Commit() {
  if (failed_step_ == nullptr && ::fsync(fd_) != 0) Failed("fsync", errno);
  if (::close(fd_) != 0) Failed("close", errno);
  fd_ = -1;
  if (failed_step_ == nullptr && ::rename(temp_.c_str(), path_.c_str()) != 0)
    Failed("rename", errno);
  if (failed_step_ != nullptr) {
    return absl::ErrnoToStatus(failed_errno_,
                               absl::StrCat(path_, ": ", failed_step_, " failed"));
  }
  committed_ = true;
  return absl::OkStatus();
}

absl::Status WriteFileAtomically(const std::string& path, std::string_view bytes) {
  AtomicFile file;
  if (absl::Status opened = file.Open(path); !opened.ok()) return opened;
  file.Write(bytes);
  return file.Commit();
}

}  // namespace realm_shadow
