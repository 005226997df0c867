#pragma once

// The LDP boosting party actor (actors/ldpboost_party.cpp hosts the data
// user and the owners of protocols/ldpboost/roles.hpp) and the driver of a
// session over party actors spawned elsewhere (the tests' impostors).

#include <cstdint>
#include <optional>
#include <vector>

#include <caf/actor.hpp>
#include <caf/fwd.hpp>

#include "actors/ldpboost_session.hpp"

namespace veil::actors {

/// A party given its data; `test_seed` as ldpboost_config's, with `index`
/// its roster index.
caf::actor spawn_ldpboost_party(caf::actor_system& sys,
                                ldpboost_party_spec spec,
                                std::optional<std::uint64_t> test_seed = {},
                                std::int32_t index = 0);

/// How the driver runs a session on given party actors: the data user
/// first, then the owners.
struct ldpboost_run : session_run {
  using session_run::session_run;
  protocols::ldpboost::params params;
  /// The public scaling bounds (the data user's rows' range per feature).
  std::vector<double> lower, upper;
  /// The data user's seed for picking owners (0: the operating system's).
  std::uint64_t pick_seed = 0;
  /// Blocks of owners on nodes: roster indices first_block.. (after the
  /// parties given their data), per_owner rows to an owner.
  std::vector<party_spec> blocks;
  std::size_t first_block = 0;
  std::uint32_t per_owner = 0;
};

/// Runs an LDP boosting session on `parties`. Never throws; never hangs.
ldpboost_outcome run_ldpboost_actors(caf::actor_system& sys,
                                     std::vector<caf::actor> parties,
                                     const ldpboost_run& run);

} // namespace veil::actors
