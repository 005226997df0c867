#pragma once

// Binds Privet's messages (protocols/privet/wire.hpp: the parties' rounds,
// the dealer's seeds and corrections) to CAF, and declares what its
// roster and its training report carry. Words travel as raw blocks; a
// dealer's seed is a raw block too, which logs print as its length only.

#include <cstdint>
#include <vector>

#include <caf/meta/type_name.hpp>

#include "messages/raw_block.hpp"
#include "protocols/privet/train.hpp"
#include "protocols/privet/wire.hpp"

namespace veil::protocols::privet {

using veil::messages::exact;
using veil::messages::raw;

/// Every field: the settings all parties of a session must agree on.
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, params& x) {
  return f(caf::meta::type_name("veil::protocols::privet::params"), x.task,
           x.tables, x.depth, x.buckets, exact(x.lambda), exact(x.eta),
           x.truncation, x.paper_sigmoid, x.hide_buckets,
           exact(x.gradient_bound));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, round_words& x) {
  return f(caf::meta::type_name("veil::protocols::privet::round_words"),
           x.round, raw(x.words));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, dealer_seed& x) {
  return f(caf::meta::type_name("veil::protocols::privet::dealer_seed"),
           raw(x.seed));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, correlation_ask& x) {
  return f(caf::meta::type_name("veil::protocols::privet::correlation_ask"),
           x.kind, x.call, x.count, x.owner, x.length, x.bits, raw(x.operands));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, correlation_answer& x) {
  return f(caf::meta::type_name("veil::protocols::privet::correlation_answer"),
           x.kind, x.call, raw(x.words));
}

} // namespace veil::protocols::privet

namespace veil::messages {

/// Session messages of a Privet session (coordinator <-> party).
namespace pvt {

/// What the roster (session::roster::settings) tells every party: the
/// protocol's settings, who owns which feature (public), and the number of
/// computing parties (the roster's last party is the dealer).
struct roster_settings {
  protocols::privet::params params;
  std::vector<std::int32_t> owner;
  std::vector<std::uint64_t> local;
  std::int32_t computing = 0;
  /// Training rows (public): the dealer's dry run needs their number.
  std::uint64_t rows = 0;
  /// The dealer answers training's requests before the online phase
  /// (false: each when the last party asks).
  bool dealer_ahead = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, roster_settings& x) {
  return f(caf::meta::type_name("veil::messages::pvt::roster_settings"),
           x.params, raw(x.owner), raw(x.local), x.computing, x.rows,
           x.dealer_ahead);
}

/// What the label holder reports when training ends (session::trained's
/// report): each table's feature per level (public), and the exchanges
/// it took.
struct training_report {
  std::vector<std::int32_t> features; ///< table-major, depth per table
  std::uint64_t rounds = 0;
  /// From the train step to its first round's completion: the dealer's
  /// offline phase (the last party starts once it has the answers).
  double offline_seconds = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, training_report& x) {
  return f(caf::meta::type_name("veil::messages::pvt::training_report"),
           raw(x.features), x.rounds, veil::messages::exact(x.offline_seconds));
}

} // namespace pvt

} // namespace veil::messages
