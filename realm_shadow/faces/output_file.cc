// A file that appears whole or not at all (output_file.h).
#include "realm_shadow/faces/output_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace realm_shadow {

OutputFile::~OutputFile() {
  if (file_ != nullptr) std::fclose(file_);
  if (!temp_.empty()) std::remove(temp_.c_str());
}

bool OutputFile::Open(const std::string& path, std::string* error) {
  path_ = path;
  temp_ = path + ".tmp." + std::to_string(::getpid());
  file_ = std::fopen(temp_.c_str(), "wb");
  if (file_ == nullptr) {
    *error = path + ": cannot write: " + std::strerror(errno);
    temp_.clear();
    return false;
  }
  return true;
}

void OutputFile::Write(std::string_view bytes) {
  if (failed_ || bytes.empty()) return;
  if (std::fwrite(bytes.data(), 1, bytes.size(), file_) != bytes.size()) {
    failed_ = true;
    errno_ = errno;
  }
}

bool OutputFile::Commit(std::string* error) {
  const bool closed = std::fclose(file_) == 0;
  if (!closed && !failed_) errno_ = errno;
  file_ = nullptr;
  if (failed_ || !closed) {
    *error = path_ + ": write failed: " + std::strerror(errno_);
    return false;  // the destructor removes the temporary
  }
  if (std::rename(temp_.c_str(), path_.c_str()) != 0) {
    *error = path_ + ": cannot rename: " + std::strerror(errno);
    return false;
  }
  temp_.clear();
  return true;
}

}  // namespace realm_shadow
