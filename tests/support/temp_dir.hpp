#pragma once

// A scratch folder for a test. Header-only: every .cpp under tests/support/
// is compiled into every test binary.

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unistd.h>

namespace veil::test {

/// A fresh, empty folder under temp_directory_path(), unique to this
/// instance (process id and a counter), removed with all it holds on
/// destruction.
class temp_dir {
public:
  temp_dir() {
    static std::atomic<unsigned> counter{0};
    auto base = std::filesystem::temp_directory_path();
    // create_directory is false when the folder is there already (left by
    // an earlier process with the same id): take the next name.
    do
      dir_ = base / ("veil-test-" + std::to_string(::getpid()) + "-" +
                     std::to_string(counter++));
    while (!std::filesystem::create_directory(dir_));
  }
  ~temp_dir() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  /// The folder itself.
  const std::filesystem::path& dir() const { return dir_; }

  /// The path of `name` in the folder (the file need not exist).
  std::string path(const std::string& name) const {
    return (dir_ / name).string();
  }
  std::string operator/(const std::string& name) const { return path(name); }

  /// Writes `contents` to `name` as is, byte for byte; returns its path.
  std::string file(const std::string& name, std::string_view contents) const {
    auto p = path(name);
    std::ofstream out(p, std::ios::binary);
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    return p;
  }

private:
  std::filesystem::path dir_;
};

} // namespace veil::test
