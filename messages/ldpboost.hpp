#pragma once

// Binds LDP boosting's messages (protocols/ldpboost/wire.hpp) to CAF, and
// declares what its roster and its training report carry. Vectors travel
// as raw blocks, single doubles as their bit patterns.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "messages/raw_block.hpp"
#include "protocols/ldpboost/params.hpp"
#include "protocols/ldpboost/wire.hpp"

namespace veil::protocols::ldpboost {

using veil::messages::exact;
using veil::messages::raw;

/// Every field: the settings all parties of a session must agree on.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, params& x) {
  return f(caf::meta::type_name("veil::protocols::ldpboost::params"), x.base,
           x.mech, exact(x.epsilon), x.classes, x.rounds, x.owners_per_round,
           x.max_attempts, exact(x.lr_lambda));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, encoded_ensemble& x) {
  return f(caf::meta::type_name("veil::protocols::ldpboost::encoded_ensemble"),
           raw(x.kinds), raw(x.numbers));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, share_request& x) {
  return f(caf::meta::type_name("veil::protocols::ldpboost::share_request"),
           x.round, x.attempt, raw(x.alpha), x.ensemble, raw(x.thresholds));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, share_reply& x) {
  return f(caf::meta::type_name("veil::protocols::ldpboost::share_reply"),
           x.round, x.attempt, raw(x.values), raw(x.labels), raw(x.weights));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, block_request& x) {
  return f(caf::meta::type_name("veil::protocols::ldpboost::block_request"),
           raw(x.owners), x.request);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, block_reply& x) {
  return f(caf::meta::type_name("veil::protocols::ldpboost::block_reply"),
           x.owner, x.reply);
}

} // namespace veil::protocols::ldpboost

namespace veil::messages {

/// Session messages of an LDP boosting session (coordinator <-> party).
namespace ldp {

/// What the roster (session::roster::settings) tells every party: the
/// protocol's settings, the public scaling bounds of every feature (from
/// the data user's own rows, spec §3.4), and the data user's seed for
/// picking owners (0: the operating system's; not secret either way).
struct roster_settings {
  protocols::ldpboost::params params;
  std::vector<double> lower, upper;
  std::uint64_t pick_seed = 0;
  /// The owners of each `veil node`'s block, the blocks being the last
  /// parties of the roster (after the owners given their rows); empty: no
  /// blocks. A party's index and owner ids follow from it in O(blocks).
  std::vector<std::uint32_t> block_owners;
  /// The rows of each owner of a block.
  std::uint32_t per_owner = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, roster_settings& x) {
  return f(caf::meta::type_name("veil::messages::ldp::roster_settings"),
           x.params, raw(x.lower), raw(x.upper), x.pick_seed,
           raw(x.block_owners), x.per_owner);
}

/// What the data user reports when training ends (session::trained's
/// report): the ensemble, how training went (spec §4.5), and the staged
/// errors on its evaluation rows.
struct training_report {
  std::vector<double> alpha;
  protocols::ldpboost::encoded_ensemble ensemble;
  std::vector<double> errors; ///< err_m of each accepted round
  std::uint64_t rejected = 0, burned = 0, silent = 0;
  std::string stopped;
  std::vector<double> staged_test_errors;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, training_report& x) {
  return f(caf::meta::type_name("veil::messages::ldp::training_report"),
           raw(x.alpha), x.ensemble, raw(x.errors), x.rejected, x.burned,
           x.silent, x.stopped, raw(x.staged_test_errors));
}

} // namespace ldp

} // namespace veil::messages
