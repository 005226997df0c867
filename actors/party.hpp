#pragma once

#include <string>
#include <vector>

#include <caf/fwd.hpp>

#include "actors/session.hpp"

namespace veil::actors {

/// Spawns a plain party called `name` on the shared role host
/// (actors/role_host.hpp). It waits for the coordinator: load (and align)
/// its data, then the roster (its id, its peers, the booster's settings),
/// then, as the active party (id 0), train and predict requests; as a
/// passive party, it answers the active party's protocol messages. It
/// monitors the active party (the active party every other) and the
/// coordinator; a failure ends it with a "veil" error naming the party and
/// the step. Byte counts per message type are kept for the report.
caf::actor spawn_party(caf::actor_system& sys, std::string name);

/// Runs a session over `parties` (party i runs cfg.parties[i]; any order:
/// the labeled party is made the active one) from a blocking caller, on
/// live_session<plain_protocol>: calls `on_progress` on this thread, and
/// ends every party before it returns.
session_outcome run_session(caf::actor_system& sys,
                            const std::vector<caf::actor>& parties,
                            const session_config& cfg,
                            const progress_fn& on_progress = {});

} // namespace veil::actors
