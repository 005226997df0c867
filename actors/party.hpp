#pragma once

#include <string>
#include <vector>

#include "actors/interfaces.hpp"
#include "actors/session.hpp"

namespace caf {
class actor_system;
} // namespace caf

namespace veil::actors {

/// Spawns a party called `name`. It waits for the coordinator: load (and
/// align) its data, then the roster (its id and its peers), then, as the
/// active party (id 0), train and predict requests; as a passive party, it
/// answers the active party's protocol messages. It monitors its peers and
/// the coordinator; a failure ends it with a "veil" error naming the party
/// and the step. Byte counts per message type are kept for the report.
party_actor spawn_party(caf::actor_system& sys, std::string name);

/// Runs a session over `parties` (party i runs cfg.parties[i]; any order:
/// the labeled party is made the active one) from a blocking caller, on
/// live_session<plain_protocol>: calls `on_progress` on this thread, and
/// ends every party before it returns.
session_outcome run_session(caf::actor_system& sys,
                            const std::vector<party_actor>& parties,
                            const session_config& cfg,
                            const progress_fn& on_progress = {});

} // namespace veil::actors
