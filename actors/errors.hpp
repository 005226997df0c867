#pragma once

// Session errors at the actor boundary: a caf::error of category "veil"
// whose code is protocols::session::errc and whose context is one string
// that names the party and the step (never data values).

#include <chrono>
#include <string>

#include <caf/error.hpp>

#include "messages/session.hpp"

namespace veil::actors {

/// A session error with its human-readable message.
caf::error session_error(protocols::session::errc code, std::string message);

/// The message of a session error; for CAF's own errors (exit reasons,
/// request timeouts) a short name such as "kill" or "request_timeout".
std::string describe(const caf::error& err);

/// The session error code of `err`: its own for "veil" errors, timeout for
/// a request timeout, party_down for any other.
protocols::session::errc code_of(const caf::error& err);

/// "1.5 s", "60 s".
std::string seconds_text(std::chrono::milliseconds d);

} // namespace veil::actors
