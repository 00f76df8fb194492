// scoped_cache_dir.hpp — a fresh tune cache directory for a test: TILEKIT_CACHE_DIR points at it
// while the object lives (the process's caches reloaded at both ends), and the variable's former
// value (or its absence) and the directory's absence come back when it goes.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

#include "tilekit/tune_cache.hpp"

namespace tilekit::testing {

class ScopedTuneCacheDir {
 public:
  // `name` tells tests apart; the process id tells concurrent test processes apart.
  explicit ScopedTuneCacheDir(const std::string& name)
      : dir_(std::filesystem::temp_directory_path() /
             ("tilekit_tune_" + std::to_string(::getpid()) + "_" + name)) {
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    if (const char* old = std::getenv("TILEKIT_CACHE_DIR")) {
      had_old_ = true;
      old_ = old;
    }
    ::setenv("TILEKIT_CACHE_DIR", dir_.c_str(), 1);
    reload_tune_caches();
  }
  ~ScopedTuneCacheDir() {
    if (had_old_)
      ::setenv("TILEKIT_CACHE_DIR", old_.c_str(), 1);
    else
      ::unsetenv("TILEKIT_CACHE_DIR");
    reload_tune_caches();
    std::error_code ignored;  // a test's leftovers must not fail its teardown
    std::filesystem::remove_all(dir_, ignored);
  }
  ScopedTuneCacheDir(const ScopedTuneCacheDir&) = delete;
  ScopedTuneCacheDir& operator=(const ScopedTuneCacheDir&) = delete;
  const std::filesystem::path& path() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::string old_;
  bool had_old_ = false;
};

}  // namespace tilekit::testing
