#pragma once

// Runs the veil program as a user does (tests/apps): `veil ARGS` from the
// build directory, stdout and stderr captured together.

#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

namespace veil::test {

struct veil_run {
  int status = -1; ///< the exit code; -1 if veil did not exit normally
  std::string output;
};

/// Runs `veil ARGS` and captures stdout and stderr together.
inline veil_run run_veil(const std::string& args) {
  std::string cmd = std::string(VEIL_BINARY_DIR) + "/veil " + args + " 2>&1";
  veil_run r;
  FILE* p = ::popen(cmd.c_str(), "r");
  BOOST_REQUIRE(p);
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0)
    r.output.append(buf.data(), n);
  int st = ::pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

/// A binary table of 6 features (4 informative, 2 redundant) from `veil
/// generate`, split 3:1 into `train` and `test` in a folder of its own.
struct generated_split {
  temp_dir dir;
  std::string train = dir / "d_train.csv", test = dir / "d_test.csv";
  explicit generated_split(int rows, int seed) {
    auto g = run_veil("generate --rows " + std::to_string(rows) +
                      " --features 6 --informative 4 --redundant 2 --seed " +
                      std::to_string(seed) + " --test-fraction 0.25 --out " +
                      dir / "d.csv");
    BOOST_REQUIRE_MESSAGE(g.status == 0, g.output);
  }
  /// `veil train`'s flags for them.
  std::string data() const { return " --data " + train + " --test " + test; }
};

} // namespace veil::test
