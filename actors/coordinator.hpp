#pragma once

#include <vector>

#include <caf/fwd.hpp>

#include "actors/interfaces.hpp"
#include "actors/session.hpp"

namespace veil::actors {

/// Spawns the coordinator of one session over `parties` (party i runs
/// cfg.parties[i]; party 0 holds the label: see active_first). On `run` it
/// has each party load and align its data, hands out the roster, has the
/// active party train and predict, collects split tables and byte counts,
/// and sends a session_result, or a session_failure naming the party and
/// the step, to `listener`; it forwards progress reports there too. It then
/// sends an exit to every party and quits.
coordinator_actor spawn_coordinator(caf::actor_system& sys,
                                    std::vector<party_actor> parties,
                                    session_config cfg, caf::actor listener);

/// Runs a session over `parties` (party i runs cfg.parties[i]; any order:
/// the labeled party is made the active one) from a blocking caller: waits
/// for the coordinator with a bounded receive, calls `on_progress` on this
/// thread, and sends an exit to the coordinator and every party before it
/// returns.
session_outcome run_session(caf::actor_system& sys,
                            const std::vector<party_actor>& parties,
                            const session_config& cfg,
                            const progress_fn& on_progress = {});

} // namespace veil::actors
