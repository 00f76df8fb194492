// output_file.cpp — whole-or-absent writes to regular files only (output_file.hpp).
#include "core/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <random>

namespace tilekit {
namespace {

std::string prefix(const std::string& path, const std::string& label) {
  return (label.empty() ? path : label + " " + path) + ": ";
}

// What a non-regular file is, for the refusal.
const char* kind_of(mode_t mode) {
  if (S_ISLNK(mode)) return "a symbolic link";
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string base_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A hidden name beside the target that nobody can guess: 64 bits from the kernel's generator.
std::string random_sibling(const std::string& dir, const std::string& path) {
  std::random_device entropy;
  const uint64_t bits = (static_cast<uint64_t>(entropy()) << 32) ^ entropy();
  char suffix[24];
  std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(bits));
  return dir + "/." + base_of(path) + ".tilekit-" + suffix;
}

// The target's state: absent (fine), a regular file (fine, *mode set), or a refusal.
Status inspect_target(const std::string& path, const std::string& label, bool* exists,
                      mode_t* mode) {
  const std::string at = prefix(path, label);
  if (path.empty()) return invalid_argument(label + ": the output path is empty");
  if (path.back() == '/') return invalid_argument(at + "names a directory, not a file");
  struct stat info {};
  *exists = ::lstat(path.c_str(), &info) == 0;
  if (!*exists) {
    if (errno != ENOENT) return io_error(at + "cannot inspect: " + std::strerror(errno));
    struct stat dir {};
    const std::string d = directory_of(path);
    if (::stat(d.c_str(), &dir) != 0)
      return io_error(at + "cannot create: directory " + d + ": " + std::strerror(errno));
    if (!S_ISDIR(dir.st_mode)) return io_error(at + "cannot create: " + d + " is not a directory");
    return Status::ok();
  }
  if (!S_ISREG(info.st_mode))
    return invalid_argument(at + "is " + kind_of(info.st_mode) +
                            "; tilekit writes only to a regular file or a new path");
  *mode = info.st_mode & 07777;
  return Status::ok();
}

// O_TMPFILE files are named through /proc/self/fd; without /proc the named path is used.
bool can_name_unnamed_files() { return ::access("/proc/self/fd", X_OK) == 0; }

}  // namespace

Status check_output_path(const std::string& path, const std::string& label) {
  bool exists = false;
  mode_t mode = 0;
  return inspect_target(path, label, &exists, &mode);
}

OutputFile::~OutputFile() { discard(); }

void OutputFile::discard() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  if (!temp_name_.empty()) ::unlink(temp_name_.c_str());
  temp_name_.clear();
}

Status OutputFile::fail(const std::string& what, int error_number) {
  discard();
  return io_error(prefix(path_, label_) + what + ": " + std::strerror(error_number));
}

Status OutputFile::open(const std::string& path, const std::string& label) {
  discard();
  path_ = path;
  label_ = label;
  dir_ = directory_of(path);
  bool exists = false;
  mode_t mode = 0;
  TILEKIT_RETURN_IF_ERROR(inspect_target(path, label, &exists, &mode));
  mode_ = exists ? static_cast<int>(mode) : -1;  // -1: what creat() gives (0666 less the umask)
  if (can_name_unnamed_files()) {
    fd_ = ::open(dir_.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    // EISDIR / EOPNOTSUPP / EINVAL: this kernel or file system has no O_TMPFILE.
    if (fd_ < 0 && errno != EISDIR && errno != EOPNOTSUPP && errno != EINVAL)
      return fail("cannot create a file in " + dir_, errno);
  }
  for (int attempt = 0; fd_ < 0 && attempt < 16; ++attempt) {
    temp_name_ = random_sibling(dir_, path);
    fd_ = ::open(temp_name_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd_ < 0) {
      const int error_number = errno;
      temp_name_.clear();
      if (error_number != EEXIST) return fail("cannot create a file in " + dir_, error_number);
    }
  }
  if (fd_ < 0) return fail("cannot create a file in " + dir_, EEXIST);
  if (mode_ >= 0 && ::fchmod(fd_, static_cast<mode_t>(mode_)) != 0)
    return fail("cannot set the file's mode", errno);
  return Status::ok();
}

Status OutputFile::write(const void* data, size_t bytes) {
  if (fd_ < 0) return io_error(prefix(path_, label_) + "write to a file that is not open");
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::write(fd_, p, bytes);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail("write failed", n < 0 ? errno : EIO);
    p += n;
    bytes -= static_cast<size_t>(n);
  }
  return Status::ok();
}

Status OutputFile::commit() {
  if (fd_ < 0) return io_error(prefix(path_, label_) + "commit of a file that is not open");
  if (::fsync(fd_) != 0) return fail("cannot flush the file to disk", errno);
  // The target is checked again: it may have become a link or a device since open().
  bool exists = false;
  mode_t mode = 0;
  if (Status s = inspect_target(path_, label_, &exists, &mode); !s) {
    discard();
    return s;
  }
  if (temp_name_.empty()) {
    const std::string self = "/proc/self/fd/" + std::to_string(fd_);
    // A new path gets its name in one step; an existing one through a sibling and a rename.
    const bool linked = !exists && ::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path_.c_str(),
                                            AT_SYMLINK_FOLLOW) == 0;
    if (!linked) {
      temp_name_ = random_sibling(dir_, path_);
      if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, temp_name_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
        const int error_number = errno;
        temp_name_.clear();
        return fail("cannot name the finished file", error_number);
      }
    }
  }
  if (!temp_name_.empty() && ::rename(temp_name_.c_str(), path_.c_str()) != 0)
    return fail("cannot rename the finished file into place", errno);
  temp_name_.clear();
  ::close(fd_);
  fd_ = -1;
  // The rename is durable once the directory is: a failure here loses nothing already written.
  const int dir_fd = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir_fd >= 0) {
    (void)::fsync(dir_fd);
    ::close(dir_fd);
  }
  return Status::ok();
}

Status write_output_file(const std::string& path, std::string_view bytes, const std::string& label) {
  OutputFile file;
  TILEKIT_RETURN_IF_ERROR(file.open(path, label));
  TILEKIT_RETURN_IF_ERROR(file.write(bytes.data(), bytes.size()));
  return file.commit();
}

}  // namespace tilekit
