#pragma once

// The Privet party actor (actors/privet_party.cpp hosts the computing
// party and the dealer of protocols/privet/roles.hpp) and the driver of a
// Privet session over party actors spawned elsewhere (the tests' impostors).

#include <cstdint>
#include <optional>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/privet_session.hpp"

namespace veil::actors {

/// A party given its data (the dealer: none); `test_seed` as
/// privet_config's, with `index` its roster index.
caf::actor spawn_privet_party(caf::actor_system& sys, privet_party_spec spec,
                              std::optional<std::uint64_t> test_seed = {},
                              std::int32_t index = 0);

/// How the driver runs a session on given party actors: the computing
/// parties first (party 0 predicts for the session), the dealer last.
struct privet_run : session_run {
  using session_run::session_run;
  protocols::privet::params params;
  protocols::privet::column_map map;
  std::uint64_t rows = 0; ///< training rows (the dealer's dry run)
  bool dealer_ahead = true;
};

/// Runs a Privet session on `parties` (spawned by spawn_privet_party, or
/// test doubles that speak the same steps). Never throws; never hangs. On
/// failure every party is ended with the error.
privet_outcome run_privet_actors(caf::actor_system& sys,
                                 std::vector<caf::actor> parties,
                                 const privet_run& run);

} // namespace veil::actors
