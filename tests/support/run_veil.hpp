#pragma once

// Runs the veil program as a user does (tests/apps): `veil ARGS` from the
// build directory, stdout and stderr captured together.

#include <boost/test/unit_test.hpp>

#include <array>
#include <cstdio>
#include <string>
#include <sys/wait.h>

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

inline bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

} // namespace veil::test
