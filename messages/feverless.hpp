#pragma once

// Binds the messages of FEVERLESS and its baselines
// (protocols/feverless/wire.hpp) to CAF, and declares the session messages
// between the FEVERLESS coordinator and its client actors. Vectors and
// fixed-size byte arrays (keys, signatures, lottery tickets) travel as raw
// blocks; every floating-point value as its bit pattern (raw_block.hpp).

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include <caf/deserializer.hpp>
#include <caf/error.hpp>
#include <caf/meta/type_name.hpp>
#include <caf/serializer.hpp>

#include "learners/boost/model.hpp"
#include "messages/failure.hpp"
#include "messages/learners.hpp"
#include "messages/raw_block.hpp"
#include "messages/session.hpp"
#include "protocols/feverless/accountant.hpp"
#include "protocols/feverless/data.hpp"
#include "protocols/feverless/params.hpp"
#include "protocols/feverless/wire.hpp"

namespace veil::messages {

/// Session messages of a FEVERLESS session (coordinator <-> client).
namespace fvl {

/// A client's public Ed25519 identity key (reply to keys_atom).
struct identity_key {
  std::array<std::uint8_t, 32> key{};
};

/// What the roster (session::roster::settings) tells every client: each
/// client's identity key (32 bytes each, by index; none in a prediction
/// session) and the session's parameters (identical for every client).
struct roster_settings {
  std::vector<std::uint8_t> keys;
  protocols::feverless::params params;
  /// The coordinator wants the client's split table with its model (for
  /// --model-out). Otherwise the client's features and thresholds never
  /// leave it (spec §8.4: only the owner knows its splits).
  bool export_splits = false;
};

/// A client's labels of the evaluation rows (reply to labels_atom), in the
/// session's row order: the rows whose label it holds and their labels.
/// [D] The coordinator gathers them to compute the test metrics, so the
/// test labels, and only they, reach the coordinator's process.
struct eval_labels {
  std::vector<std::uint32_t> rows;
  std::vector<float> labels;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, identity_key& x) {
  return f(caf::meta::type_name("veil::messages::fvl::identity_key"),
           raw(x.key));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, roster_settings& x) {
  return f(caf::meta::type_name("veil::messages::fvl::roster_settings"),
           raw(x.keys), x.params, x.export_splits);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, eval_labels& x) {
  return f(caf::meta::type_name("veil::messages::fvl::eval_labels"),
           raw(x.rows), raw(x.labels));
}

} // namespace fvl

} // namespace veil::messages

namespace veil::protocols::crypto {

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lottery_ticket& x) {
  return f(caf::meta::type_name("veil::protocols::crypto::lottery_ticket"),
           veil::messages::raw(x.value), veil::messages::raw(x.sig));
}

} // namespace veil::protocols::crypto

namespace veil::protocols::feverless {

using veil::messages::exact;
using veil::messages::raw;

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, privacy_report& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::privacy_report"),
           x.protected_sums, x.local, x.against, exact(x.sigma),
           exact(x.release_epsilon), exact(x.release_delta),
           exact(x.release_rho), x.queries_caused, x.queries_answered,
           x.queries_total, x.record_query_bound, x.total_by_zcdp,
           exact(x.total_epsilon), exact(x.total_delta), exact(x.total_rho),
           exact(x.basic_epsilon), exact(x.basic_delta),
           x.realised_record_queries, exact(x.realised_epsilon), x.warning);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, training_report& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::training_report"),
           x.privacy, raw(x.split_trees), raw(x.split_nodes),
           raw(x.split_features), raw(x.split_buckets), raw(x.split_thresholds),
           raw(x.split_default_left));
}

/// Every field but test_hooks (local to a process, never on the wire).
template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, params& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::params"),
           x.protocol, x.session, x.trees, x.max_depth, exact(x.eta),
           exact(x.lambda), exact(x.gamma), exact(x.split_threshold), x.buckets,
           x.frac_bits, x.budget, exact(x.epsilon), exact(x.delta),
           x.total_split, x.calib, exact(x.sensitivity_g),
           exact(x.sensitivity_h), x.noise, x.noise_below_unit, x.selection,
           exact(x.portion), x.election, x.paillier_bits, x.paillier_threads,
           exact(x.max_delta_step), x.hide_labels, x.source_noise,
           x.hessian_noise, x.rounds_evaluated);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, key_announce& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::key_announce"),
           x.rows, x.labels, x.features, raw(x.params_digest),
           raw(x.session_key), raw(x.sig), raw(x.paillier_key),
           raw(x.lottery_tips));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, label_census& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::label_census"),
           raw(x.holds));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, query_batch& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::query_batch"),
           x.tree, x.depth, raw(x.qids), raw(x.nonces), raw(x.features),
           raw(x.held), raw(x.buckets));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, lead_tickets& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::lead_tickets"),
           x.tree, x.depth, raw(x.tickets), raw(x.reveal), raw(x.noise_reveal),
           raw(x.selections));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, threshold_tickets& x) {
  return f(
      caf::meta::type_name("veil::protocols::feverless::threshold_tickets"),
      x.tree, x.depth, x.round, raw(x.qids), raw(x.attempts), raw(x.tickets));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, noise_offers& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::noise_offers"),
           x.tree, x.depth, x.round, raw(x.volunteer), raw(x.tickets), raw(x.g),
           raw(x.h));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, noise_notice& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::noise_notice"),
           x.tree, x.depth, x.round, raw(x.selected), x.redo);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, masked_sums& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::masked_sums"),
           x.tree, x.depth, raw(x.g), raw(x.h));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, encrypted_sums& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::encrypted_sums"),
           x.tree, x.depth, raw(x.g), raw(x.h));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, plain_sums& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::plain_sums"),
           x.tree, x.depth, raw(x.g), raw(x.h));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, best_gains& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::best_gains"),
           x.tree, x.depth, raw(x.gains), raw(x.has_totals));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, node_decisions& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::node_decisions"),
           x.tree, x.depth, raw(x.split_nodes), raw(x.goes_left_bits),
           raw(x.left_weights), raw(x.right_weights), raw(x.leaf_nodes),
           raw(x.leaf_weights));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, predict_query& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::predict_query"),
           x.step, raw(x.trees), raw(x.nodes), raw(x.offsets), raw(x.rows));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, predict_answer& x) {
  return f(caf::meta::type_name("veil::protocols::feverless::predict_answer"),
           x.step, raw(x.goes_left_bits));
}

} // namespace veil::protocols::feverless
