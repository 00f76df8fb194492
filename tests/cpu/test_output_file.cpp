// Whole-or-absent writes to regular files only (core/output_file.hpp), and the writers built on
// them (.npy results, the tune cache): links, FIFOs and devices are refused and left as they
// were, a planted link is never followed, and a failed write leaves nothing behind.
#include <gtest/gtest.h>

#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/output_file.hpp"
#include "tilekit/npy.hpp"

namespace tilekit {
namespace {

class OutputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char templ[] = "/tmp/tilekit-output-XXXXXX";
    ASSERT_NE(::mkdtemp(templ), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    const std::string cmd = "rm -rf '" + dir_ + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0);
  }
  std::string at(const std::string& name) const { return dir_ + "/" + name; }
  std::set<std::string> entries() const {
    std::set<std::string> names;
    DIR* d = ::opendir(dir_.c_str());
    while (dirent* e = ::readdir(d))
      if (std::string(e->d_name) != "." && std::string(e->d_name) != "..") names.insert(e->d_name);
    ::closedir(d);
    return names;
  }
  static std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void put(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
  }
  std::string dir_;
};

TEST_F(OutputFileTest, NewPathGetsTheBytesAndTheUsualMode) {
  ASSERT_TRUE(write_output_file(at("new.txt"), "hello\n").is_ok());
  EXPECT_EQ(contents(at("new.txt")), "hello\n");
  EXPECT_EQ(entries(), std::set<std::string>{"new.txt"});  // no temporary beside it
  const mode_t mask = ::umask(0);
  ::umask(mask);
  struct stat info {};
  ASSERT_EQ(::stat(at("new.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0666 & ~mask);
}

TEST_F(OutputFileTest, ExistingRegularFileIsReplacedKeepingItsMode) {
  put(at("old.txt"), "old contents");
  ASSERT_EQ(::chmod(at("old.txt").c_str(), 0640), 0);
  ASSERT_TRUE(write_output_file(at("old.txt"), "new").is_ok());
  EXPECT_EQ(contents(at("old.txt")), "new");
  struct stat info {};
  ASSERT_EQ(::stat(at("old.txt").c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
  EXPECT_EQ(entries(), std::set<std::string>{"old.txt"});
}

TEST_F(OutputFileTest, SymlinkIsRefusedAndNeitherItNorItsTargetChanges) {
  put(at("victim.txt"), "precious");
  ASSERT_EQ(::symlink(at("victim.txt").c_str(), at("link.npy").c_str()), 0);
  const float one = 1.0f;
  const Status s = write_npy_matrix(at("link.npy"), &one, 1, 1);
  ASSERT_FALSE(s.is_ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("symbolic link"), std::string::npos) << s.message();
  struct stat info {};
  ASSERT_EQ(::lstat(at("link.npy").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  EXPECT_EQ(contents(at("victim.txt")), "precious");
  EXPECT_EQ(entries(), (std::set<std::string>{"link.npy", "victim.txt"}));
}

TEST_F(OutputFileTest, FifoIsRefusedAndStaysAFifo) {
  ASSERT_EQ(::mkfifo(at("pipe").c_str(), 0600), 0);
  const Status s = write_output_file(at("pipe"), "x");  // would block in open() if it tried
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("FIFO"), std::string::npos) << s.message();
  struct stat info {};
  ASSERT_EQ(::lstat(at("pipe").c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
}

TEST_F(OutputFileTest, DevNullIsRefusedAndStaysACharacterDevice) {
  const float one = 1.0f;
  const Status s = write_npy_matrix("/dev/null", &one, 1, 1);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("character device"), std::string::npos) << s.message();
  struct stat info {};
  ASSERT_EQ(::lstat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST_F(OutputFileTest, DirectoryAndMissingFolderAreRefused) {
  ASSERT_EQ(::mkdir(at("sub").c_str(), 0700), 0);
  EXPECT_EQ(write_output_file(at("sub"), "x").code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(write_output_file(at("sub") + "/", "x").code(), StatusCode::kInvalidArgument);
  const Status missing = write_output_file(at("nowhere/file.txt"), "x");
  EXPECT_EQ(missing.code(), StatusCode::kIoError);
  EXPECT_NE(missing.message().find("nowhere"), std::string::npos) << missing.message();
  EXPECT_EQ(write_output_file("", "x").code(), StatusCode::kInvalidArgument);
}

TEST_F(OutputFileTest, ALinkPlantedAtTheOldTemporaryNameIsNotFollowed) {
  // The writer once used "<out>.tmp.<pid>": a link planted there redirected the write.
  put(at("victim.txt"), "precious");
  const std::string planted = at("out.npy") + ".tmp." + std::to_string(::getpid());
  ASSERT_EQ(::symlink(at("victim.txt").c_str(), planted.c_str()), 0);
  const float v[2] = {1.0f, 2.0f};
  ASSERT_TRUE(write_npy_matrix(at("out.npy"), v, 1, 2).is_ok());
  EXPECT_EQ(contents(at("victim.txt")), "precious");
  NpyMatrix back;
  ASSERT_TRUE(read_npy_matrix(at("out.npy"), &back).is_ok());
  EXPECT_EQ(back.data, (std::vector<float>{1.0f, 2.0f}));
}

TEST_F(OutputFileTest, UncommittedFileLeavesNothing) {
  {
    OutputFile file;
    ASSERT_TRUE(file.open(at("never.txt")).is_ok());
    ASSERT_TRUE(file.write("partial", 7).is_ok());
  }  // destroyed without commit()
  EXPECT_TRUE(entries().empty());
}

TEST_F(OutputFileTest, FailedWriteLeavesNeitherFileNorTemporary) {
  // A file-size limit makes write() fail with EFBIG, as a full disk fails with ENOSPC.
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit old_limit {};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  rlimit small = old_limit;
  small.rlim_cur = 4096;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  put(at("kept.txt"), "old");
  const Status s = write_output_file(at("kept.txt"), std::string(1 << 20, 'x'));
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(s.code(), StatusCode::kIoError);
  EXPECT_NE(s.message().find("write failed"), std::string::npos) << s.message();
  EXPECT_EQ(contents(at("kept.txt")), "old");  // the old file is untouched
  EXPECT_EQ(entries(), std::set<std::string>{"kept.txt"});
}

TEST_F(OutputFileTest, CheckOutputPathCreatesNothing) {
  EXPECT_TRUE(check_output_path(at("fresh.csv")).is_ok());
  EXPECT_TRUE(entries().empty());
  const Status s = check_output_path("/dev/null", "--csv");
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message().rfind("--csv /dev/null: ", 0), 0u) << s.message();
}

}  // namespace
}  // namespace tilekit
