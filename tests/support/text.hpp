#pragma once

// Text checks the tests share. Header-only: every .cpp under tests/support/
// is compiled into every test binary.

#include <string>

namespace veil::test {

/// Whether `what` occurs in `s`.
inline bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

} // namespace veil::test
