// output_file.hpp — every file tilekit writes (.npy results, CSV/JSON/markdown records, reports,
// the tune cache) goes through here, so that a write is whole or absent and never lands anywhere
// but a regular file the caller named.
//
// The rules:
//   - The target must be a new path or an existing regular file. A symlink, a directory, a FIFO,
//     a socket or a device is refused (kInvalidArgument, naming the path and what it is): renaming
//     over `/dev/null` as root would replace the machine's /dev/null, and following a planted link
//     would overwrite a file the caller never named.
//   - The data goes to a file with no name in the target's directory (O_TMPFILE), or, on a file
//     system without O_TMPFILE, to one made by mkstemp (O_CREAT | O_EXCL, an unpredictable name,
//     mode 0600 until it is complete). It is fsync'ed, then given the target's name by an atomic
//     rename. A failure, or the process dying before the commit, leaves no file behind on the first
//     path; on the mkstemp path a failure removes the temporary.
//   - The finished file gets the mode a plain creat() would give (0666 less the umask), or the
//     mode of the regular file it replaces.
// Failures of the system (cannot create, write, sync or rename) are kIoError, naming the path and
// the reason (strerror).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "tilekit/status.hpp"

namespace tilekit {

// Checks that `path` may be written (see the rules above) without creating anything: callers run
// it before long work so that a refused --out fails at once. `label` prefixes the message.
Status check_output_path(const std::string& path, const std::string& label = "");

// A file being written; it appears under its name only when commit() succeeds.
class OutputFile {
 public:
  OutputFile() = default;
  ~OutputFile();  // discards an uncommitted file
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Checks the target and creates the unnamed (or unpredictably named) temporary.
  Status open(const std::string& path, const std::string& label = "");
  Status write(const void* data, size_t bytes);
  // fsync, re-check the target, rename into place, fsync the directory.
  Status commit();

 private:
  Status fail(const std::string& what, int error_number);
  void discard();

  std::string path_, label_, dir_, temp_name_;  // temp_name_: empty while the file has no name
  int fd_ = -1;
  int mode_ = 0;
};

// The whole of `bytes` into `path` through an OutputFile.
Status write_output_file(const std::string& path, std::string_view bytes,
                         const std::string& label = "");

}  // namespace tilekit
