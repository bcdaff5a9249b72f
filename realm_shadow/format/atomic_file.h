// realm_shadow/format/atomic_file.h - a file that appears whole or
// not at all.
//
// Layer format.  The bytes go to a temporary of a unique name
// (mkstemp) in the destination's directory, so that rename() is atomic
// (same file system) and two writers of one path, threads or processes,
// never share a temporary; Commit() flushes it to disk (fsync) and renames
// it over the destination.  A crash or a full disk never leaves a half file
// under the final name, and an uncommitted temporary is removed.  Dumps
// (writer.cc) and the memory map page (page/) are written this way.
#ifndef REALM_SHADOW_FORMAT_ATOMIC_FILE_H_
#define REALM_SHADOW_FORMAT_ATOMIC_FILE_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "realm_shadow/layers.h"

namespace realm_shadow {

REALM_SHADOW_HEADER_OF_LAYER(format);

class AtomicFile {
 public:
  AtomicFile() = default;
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();  // removes the temporary unless committed

  // Creates the temporary for `path`; an error is one line naming `path`.
  absl::Status Open(const std::string& path);
  int fd() const { return fd_; }
  // Writes all of `bytes` (EINTR and short writes retried); a failure is
  // recorded for Commit, which reports it.
  void Write(std::string_view bytes);
  // Records a write error (an errno value) seen by the caller.
  void Failed(const char* step, int error_number);
  // fsync, close, rename; the error is the first failure (the caller's
  // write, or one of these), one line naming the path.
  absl::Status Commit();

 private:
  std::string path_, temp_;
  int fd_ = -1;
  const char* failed_step_ = nullptr;
  int failed_errno_ = 0;
  bool committed_ = false;
};

// Writes `bytes` as `path` through an AtomicFile.
absl::Status WriteFileAtomically(const std::string& path, std::string_view bytes);

// Writes all of n bytes to fd, retrying EINTR and short writes; 0 or the
// errno of the failure (ENOSPC for a write that makes no progress).
int WriteFully(int fd, const void* data, size_t n);

}  // namespace realm_shadow

#endif  // REALM_SHADOW_FORMAT_ATOMIC_FILE_H_
