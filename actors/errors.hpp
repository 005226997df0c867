#pragma once

// Session errors at the actor boundary: a caf::error of category "veil"
// whose code is protocols::session::errc and whose context is one string
// that names the party and the step (never data values).

#include <chrono>
#include <string>

#include <caf/error.hpp>
#include <caf/fwd.hpp>

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

/// An unexpected message for an error text: its content, cut to 120
/// characters; an empty message (what CAF delivers when a remote message
/// fails to decode) is said to be one.
std::string unexpected_text(const caf::message& m);

/// " on node N" for an actor of another node; empty for a local one.
std::string node_text(const caf::strong_actor_ptr& sender);

/// "1.5 s", "60 s".
std::string seconds_text(std::chrono::milliseconds d);

} // namespace veil::actors
