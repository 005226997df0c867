#pragma once

// An LDP boosting session (protocols/ldpboost/roles.hpp) in the actor
// runtime: a star of data owners around the data user (index 0). The
// coordinator starts the data user, which asks H unused owners per
// attempt for one perturbed share each (an owner answers once in its
// lifetime), skips an owner that does not answer within half the session's
// timeout (the log counts it), boosts with SAMME and reports its ensemble;
// it predicts its evaluation rows itself. CAF-free, like
// actors/session.hpp.
//
// The data user and any owners given their rows at spawn live in this
// process (`veil train --protocol ldp-boost`: 100,000 owners are 100,000
// actors); owners may also live on `veil node`s, each node a block of the
// owners of the file it serves (`per_owner` rows each, one actor per
// owner there), asked once per attempt for all its selected owners.

#include <cstdint>
#include <string>
#include <vector>

#include "actors/live_session.hpp"
#include "actors/session.hpp"
#include "protocols/ldpboost/deal.hpp"
#include "protocols/ldpboost/params.hpp"

namespace veil::actors {

/// LDP boosting parties (the data user when the roster makes it party 0,
/// else an owner).
party_kind ldpboost_party_kind();

using ldpboost_party_spec = protocols::ldpboost::party_data;

struct ldpboost_config : given_config<ldpboost_party_spec> {
  protocols::ldpboost::params params;
  /// Blocks of owners on `veil node`s, after the parties given their data:
  /// each loads the dataset its node serves under `data.path` (with
  /// `data.label_column`) and deals it `per_owner` rows to an owner.
  std::vector<party_spec> remote_parties;
  std::uint32_t per_owner = 0;
  tls_files tls;
  // test_seed: owner q perturbs from a stream of (seed, q), and the data
  // user picks owners from the seed (otherwise: the operating system's).
};

/// The data user's ensemble (in its scaled features: the roster's bounds)
/// and how training went.
struct ldpboost_result : result_base<> {
  std::vector<double> alpha;
  std::vector<protocols::ldpboost::member> ensemble;
  std::vector<double> lower, upper; ///< the public scaling bounds
  std::vector<double> errors;       ///< err_m of each accepted round
  std::uint64_t owners = 0;         ///< in the pool, here and on nodes
  std::uint64_t rejected = 0, burned = 0, silent = 0;
  std::string stopped; ///< why training ended before its rounds, if it did
  /// The test error of the first m members, m = 1..rounds.
  std::vector<double> staged_test_errors;
};

using ldpboost_outcome = outcome_of<ldpboost_result>;

struct ldpboost_protocol {
  using given_config = ldpboost_config;
  using party_config = parties_config;
  using result = ldpboost_result;
  using outcome = ldpboost_outcome;
};

using ldpboost_session = live_session<ldpboost_protocol>;

} // namespace veil::actors
