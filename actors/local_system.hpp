#pragma once

// What every session (live_session<P>) shares: the actor system's
// configuration and the helpers of the scoped actor that drives the parties.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/error.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/system_messages.hpp>

#include "actors/errors.hpp"
#include "actors/session.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"

namespace veil::actors {

/// The actor system of a session run in this process: Veil's message types,
/// `o.threads` scheduler threads (0 = one per core), work sharing if asked.
struct local_config : caf::actor_system_config {
  explicit local_config(const local_options& o);
};

/// An outcome (session_outcome, feverless_outcome, opboost_outcome) that
/// failed with `code` and `message`.
template <class Outcome>
Outcome failed(protocols::session::errc code, std::string message) {
  Outcome out;
  out.code = code;
  out.error = std::move(message);
  return out;
}

/// The index of `sender` among `actors`; -1 for none of them.
std::int32_t index_of(const std::vector<caf::actor>& actors,
                      const caf::strong_actor_ptr& sender);

/// Ends every actor of `actors` (user_shutdown).
void send_exits(caf::scoped_actor& self, const std::vector<caf::actor>& actors);

/// The first failure: a party's own error (names it and the step), or CAF's
/// reason, prefixed with `who`, for a party that vanished.
template <class Outcome>
Outcome from_error(const caf::error& e, const std::string& who) {
  auto text = describe(e);
  if (e.category() != caf::atom("veil"))
    text = who + ": " + text;
  return failed<Outcome>(code_of(e), text);
}

/// The failure for a party's down message: its reason, or "<who> ended
/// early" for one that ended normally; `anyone` names a party not in
/// `actors`.
template <class Outcome>
Outcome
from_down(const caf::down_msg& dm, const std::vector<caf::actor>& actors,
          const std::vector<std::string>& names, const std::string& anyone) {
  auto q = index_of(actors, caf::actor_cast<caf::strong_actor_ptr>(dm.source));
  auto who = q >= 0 ? names[static_cast<std::size_t>(q)] : anyone;
  return dm.reason ? from_error<Outcome>(dm.reason, who)
                   : failed<Outcome>(protocols::session::errc::party_down,
                                     who + " ended early");
}

} // namespace veil::actors
