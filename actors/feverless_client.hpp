#pragma once

// The FEVERLESS client actor (hosting protocols/feverless/client.hpp, an
// I/O-free role) and the driver of a FEVERLESS session over client actors.
// One actor serves both ways a client gets its data: given at spawn (the
// one-file `veil train --protocol feverless` path) or loaded on its own
// node from its own files (session files, `veil node`).
//
// The session steps, coordinator -> client (each a request):
//   (load_atom, session::load_request) -> fvl::loaded     [loading clients]
//   (align_atom, session::align_request) -> std::uint64_t [loading clients]
//   (keys_atom) -> fvl::identity_key
//   (peers_atom, session::roster [fvl::roster_settings], peers) -> ok_atom
//   (train_atom)      then client -> coordinator: session::trained
//                     (its feverless::training_report packed inside)
//   (predict_atom)    client 0;  then client -> coordinator: session::predicted
//   (labels_atom) -> fvl::eval_labels                     [loading clients]
//   (part_atom, session::part_request) -> std::uint64_t   save or restore
//   (stats_atom) -> session::byte_stats
// Client to client: the protocol's wire messages. A client monitors its
// peers and the coordinator; a refused message, a peer that ends or a
// silence longer than the roster's timeout ends it with a "veil" error that
// names the client and the step, and the driver ends the others with it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/feverless_session.hpp"

namespace veil::actors {

/// A client given its data. `test_seed` (tests only): the client draws from
/// seeded_random(seed * 1000 + index + 1) and derives its identity from the
/// seed and `index`, which must then be its roster index.
caf::actor spawn_feverless_client(caf::actor_system& sys,
                                  feverless_client_spec spec,
                                  std::optional<std::uint64_t> test_seed = {},
                                  std::int32_t index = 0);

/// How the driver runs a session on given client actors.
/// Client 0 predicts (its eval data, or the test files); in a prediction
/// session every client restores its split table. The clients' files name
/// the data, id and label columns and test file of each.
struct feverless_run : session_run {
  using session_run::session_run;
  protocols::feverless::params params;
  /// Every client sends its split table (features and thresholds) with its
  /// model, for --model-out. Off, they never leave their clients.
  bool export_splits = false;
};

/// Runs a FEVERLESS session on `clients` (spawned by either function above,
/// here or on other nodes; or test doubles that speak the same steps).
/// Never throws; never hangs (every request has the timeout, the clients
/// watch each other). On failure every client is ended with the error.
feverless_outcome run_feverless_clients(caf::actor_system& sys,
                                        std::vector<caf::actor> clients,
                                        const feverless_run& run);

} // namespace veil::actors
