#pragma once

// The OpBoost party actor (hosting protocols/opboost/{active,passive}_party,
// I/O-free roles) and the driver of an OpBoost session over party actors.
// One actor serves both ways a party gets its data: given at spawn (the
// one-file `veil train --protocol opboost` path) or loaded on its own node
// from its own files (session files, `veil node`). Party A (index 0) holds
// the labels; every other party is a Party B.
//
// The session steps, coordinator -> party (each a request):
//   (load_atom, session::load_request) -> session::data_summary [loading]
//   (align_atom, session::align_request) -> std::uint64_t       [loading]
//   (peers_atom, session::roster [opl::roster_settings], peers) -> ok_atom
//   (train_atom)      then Party A -> coordinator: session::trained
//                     (its opboost::training_report packed inside)
//   (predict_atom)    Party A;  then Party A -> coordinator: session::predicted
//   (stats_atom) -> session::byte_stats
// Party to party: the protocol's wire messages (M0-M4). A party monitors
// its peers and the coordinator; a refused message, a peer that ends or a
// silence longer than the roster's timeout ends it with a "veil" error
// that names the party and the step, and the driver ends the others.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/opboost_session.hpp"

namespace veil::actors {

/// A party given its data (and, a Party B, its maps). `test_seed` (tests
/// only): a Party B draws from seeded_random(seed * 1000 + index), and
/// `index` must then be its roster index.
caf::actor spawn_opboost_party(caf::actor_system& sys, opboost_party_spec spec,
                               std::optional<std::uint64_t> test_seed = {},
                               std::int32_t index = 0);

/// How the driver runs a session on given party actors.
/// Party A first; it predicts privately (its eval data, or the test
/// files); only Party A's file names a label column. In a prediction
/// session Party A restores the model with every party's columns
/// (`features`, by index), each Party B its part.
struct opboost_run : session_run {
  using session_run::session_run;
  protocols::opboost::params params;
  /// Public pre-processing bounds by column, for the Party Bs that load
  /// their data; each must name a column of one of them.
  std::map<std::string, protocols::opboost::feature_map> bounds;
  std::vector<std::vector<std::string>> features;
};

/// Runs an OpBoost session on `parties` (spawned by either function above,
/// here or on other nodes; or test doubles that speak the same steps).
/// Never throws; never hangs (every request has the timeout, the parties
/// watch each other). On failure every party is ended with the error.
opboost_outcome run_opboost_actors(caf::actor_system& sys,
                                   std::vector<caf::actor> parties,
                                   const opboost_run& run);

} // namespace veil::actors
