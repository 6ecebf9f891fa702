#pragma once
/// @file host_test_util.hpp
/// Small helpers shared by the host unit tests: a temp directory removed on scope exit, an
/// environment variable restored on scope exit, the fixture module directory.

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>

namespace kioku::host::testing {

/// A fresh directory under the system temp dir, removed with everything in it.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    path_ = std::filesystem::temp_directory_path() / ("kioku-host-test-" + std::to_string(rd()) + std::to_string(rd()));
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  /// Writes `text` to `relative` (parent directories created) and returns its full path.
  std::filesystem::path Write(const std::filesystem::path& relative, const std::string& text) const {
    auto p = path_ / relative;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
    return p;
  }

 private:
  std::filesystem::path path_;
};

/// Sets (or, with nullopt, unsets) an environment variable and restores it on scope exit.
class ScopedEnv {
 public:
  ScopedEnv(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~ScopedEnv() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

/// Directory holding the fixture modules (kioku-fixture.so, kioku-wrongabi.so, ...).
inline std::filesystem::path FixtureDir() { return KIOKU_FIXTURE_PLUGIN_DIR; }
inline std::filesystem::path FixtureModule(const std::string& stem) {
  return FixtureDir() / ("kioku-" + stem + ".so");
}

}  // namespace kioku::host::testing
