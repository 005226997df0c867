#pragma once

// Catching the veil::input_error a call throws. Header-only: every .cpp
// under tests/support/ is compiled into every test binary.

#include <boost/test/unit_test.hpp>

#include <string>

#include "learners/input_error.hpp"

namespace veil::test {

/// The message of the veil::input_error that `f` throws; fails the test
/// case when `f` throws none.
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const veil::input_error& e) {
    return e.what();
  }
  BOOST_FAIL("expected a veil::input_error");
  return {};
}

} // namespace veil::test
