#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace veil {

/// Bad local input: a malformed file, an unknown column, an out-of-range
/// parameter. The message names the file, line, column or parameter, and the
/// command stops before it writes or sends anything. Peer messages never raise
/// this; they are validated into error codes at the actor boundary.
class input_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// Throws input_error(what), for readers that refuse input in many places.
[[noreturn]] inline void fail_input(std::string what) {
  throw input_error(std::move(what));
}

} // namespace veil
