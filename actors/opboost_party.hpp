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
//   (peers_atom, opl::roster, std::vector<caf::actor>) -> caf::ok_atom
//   (train_atom)      then Party A -> coordinator: session::trained
//                     (its opl::training_report packed inside)
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

/// A party called `name` that loads its own data (load, align requests)
/// before the roster: Party A if the roster makes it party 0, else a Party
/// B, which maps its columns into D⊥ with the roster's public bounds (its
/// data's min and max for a column without). What `veil node` spawns for
/// kind "opboost".
caf::actor spawn_opboost_party(caf::actor_system& sys, std::string name);

/// A party given its data (and, a Party B, its maps). `test_seed` (tests
/// only): a Party B draws from seeded_random(seed * 1000 + index), and
/// `index` must then be its roster index.
caf::actor spawn_opboost_party(caf::actor_system& sys, opboost_party_spec spec,
                               std::optional<std::uint64_t> test_seed = {},
                               std::int32_t index = 0);

/// How the driver runs a session on given party actors.
struct opboost_run {
  /// Party names, by index (Party A first; the names in errors, reports).
  std::vector<std::string> names;
  protocols::opboost::params params;
  std::chrono::milliseconds timeout{60000};
  /// Emulated links between the parties (none by default).
  protocols::session::link_model link;
  /// Party A predicts the evaluation rows privately after training (its
  /// eval data, or the test files), when there are any.
  bool predict = true;
  /// Public pre-processing bounds by column, for the Party Bs that load
  /// their data; each must name a column of one of them.
  std::map<std::string, protocols::opboost::feature_map> bounds;
  /// Non-empty: after training, each Party B keeps its part where it runs,
  /// in protocols::session::part_path(parts, its name).
  protocols::session::model_parts parts;
  /// A prediction session (with `load`): the parties load only the rows to
  /// predict, Party A restores this model (`features`: every party's
  /// columns, by index), each Party B its part from part_path(parts, name),
  /// and Party A predicts privately.
  std::optional<learners::model> restore;
  std::vector<std::vector<std::string>> features;
  /// Non-empty: the parties load their data from these specs first (same
  /// order as the actors; Party A's names the label column, no other's
  /// does), and are aligned on the id column like plain parties.
  std::vector<party_spec> load;
};

/// Runs an OpBoost session on `parties` (spawned by either function above,
/// here or on other nodes; or test doubles that speak the same steps).
/// Never throws; never hangs (every request has the timeout, the parties
/// watch each other). On failure every party is ended with the error.
opboost_outcome run_opboost_actors(caf::actor_system& sys,
                                   std::vector<caf::actor> parties,
                                   const opboost_run& run);

} // namespace veil::actors
