// realm_shadow/faces/output_file.h - a file the command writes (a page, a
// trace) that appears under its name whole or not at all.
//
// Layer 5.  Bytes go to "<path>.tmp.<pid>" and the file is renamed over
// <path> at Commit; a failed or abandoned file is removed, so a failure
// never leaves half a page.  No fsync: these files are made again from the
// dump at will (dumps themselves are written by dump/atomic_file.h, which
// does sync).
#ifndef REALM_SHADOW_FACES_OUTPUT_FILE_H_
#define REALM_SHADOW_FACES_OUTPUT_FILE_H_

#include <cstdio>
#include <string>
#include <string_view>

namespace realm_shadow {

class OutputFile {
 public:
  OutputFile() = default;
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // removes the temporary unless committed

  // False with "<path>: cannot write: <reason>".
  bool Open(const std::string& path, std::string* error);
  // Appends; a failure is kept for Commit to report.
  void Write(std::string_view bytes);
  // Closes and renames; false with a one-line *error.
  bool Commit(std::string* error);

 private:
  std::string path_, temp_;
  FILE* file_ = nullptr;
  bool failed_ = false;
  int errno_ = 0;
};

}  // namespace realm_shadow

#endif  // REALM_SHADOW_FACES_OUTPUT_FILE_H_
