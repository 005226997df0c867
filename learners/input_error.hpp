#pragma once

#include <stdexcept>
#include <string>

namespace veil {

/// Bad local input: a malformed file, an unknown column, an out-of-range
/// parameter. The message names the file, line, column or parameter, and the
/// command stops before it writes or sends anything. Peer messages never raise
/// this; they are validated into error codes at the actor boundary.
class input_error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

} // namespace veil
