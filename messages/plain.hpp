#pragma once

// Binds the messages of plaintext vertical federated XGBoost
// (protocols/plain/wire.hpp) to CAF: one inspect() per struct, in the
// structs' own namespace so that argument-dependent lookup finds them.
// Bulk vectors travel as raw blocks (messages/raw_block.hpp).

#include <caf/meta/type_name.hpp>

#include "messages/failure.hpp"
#include "messages/learners.hpp"
#include "messages/raw_block.hpp"
#include "messages/session.hpp"
#include "protocols/plain/wire.hpp"

namespace veil::protocols::plain {

using veil::messages::raw;

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, roster_settings& x) {
  return f(caf::meta::type_name("veil::protocols::plain::roster_settings"),
           x.booster, x.exchange, x.masking);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, setup& x) {
  return f(caf::meta::type_name("veil::protocols::plain::setup"), x.max_bin,
           x.threads, x.tree_settings, x.paillier_bits, raw(x.paillier_key));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, setup_done& x) {
  return f(caf::meta::type_name("veil::protocols::plain::setup_done"),
           raw(x.bins_per_feature), x.max_candidates);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, noisy_gradients& x) {
  return f(caf::meta::type_name("veil::protocols::plain::noisy_gradients"),
           x.tree, raw(x.g), raw(x.h));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, encrypted_gradients& x) {
  return f(caf::meta::type_name("veil::protocols::plain::encrypted_gradients"),
           x.tree, raw(x.ciphertexts));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, encrypted_histograms& x) {
  return f(caf::meta::type_name("veil::protocols::plain::encrypted_histograms"),
           x.tree, x.depth, raw(x.nodes), raw(x.ciphertexts));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bucket_ids& x) {
  return f(caf::meta::type_name("veil::protocols::plain::bucket_ids"),
           raw(x.domains), raw(x.ids));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, bucket_splits& x) {
  return f(caf::meta::type_name("veil::protocols::plain::bucket_splits"),
           x.tree, raw(x.nodes), raw(x.features), raw(x.thresholds));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, noise_matrices& x) {
  return f(caf::meta::type_name("veil::protocols::plain::noise_matrices"),
           x.tree, x.depth, raw(x.nodes), raw(x.candidates), raw(x.left_counts),
           raw(x.noise));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, masked_sums& x) {
  return f(caf::meta::type_name("veil::protocols::plain::masked_sums"), x.tree,
           x.depth, raw(x.nodes), raw(x.sums), raw(x.masked));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, passive_scores& x) {
  return f(caf::meta::type_name("veil::protocols::plain::passive_scores"),
           x.tree, x.depth, raw(x.nodes), raw(x.gains));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, scored_split_query& x) {
  return f(caf::meta::type_name("veil::protocols::plain::scored_split_query"),
           x.tree, x.depth, raw(x.nodes));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tree_start& x) {
  return f(caf::meta::type_name("veil::protocols::plain::tree_start"), x.tree,
           raw(x.grads));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, split_outcome& x) {
  return f(caf::meta::type_name("veil::protocols::plain::split_outcome"),
           x.node, x.left, x.right, raw(x.goes_left_bits));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, level_request& x) {
  return f(caf::meta::type_name("veil::protocols::plain::level_request"),
           x.tree, x.depth, x.splits, raw(x.build), x.last);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, histograms& x) {
  return f(caf::meta::type_name("veil::protocols::plain::histograms"), x.tree,
           x.depth, raw(x.nodes), raw(x.sums));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, split_query& x) {
  return f(caf::meta::type_name("veil::protocols::plain::split_query"), x.tree,
           x.depth, raw(x.nodes), raw(x.features), raw(x.bins),
           raw(x.default_left));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, split_answer& x) {
  return f(caf::meta::type_name("veil::protocols::plain::split_answer"), x.tree,
           x.depth, raw(x.nodes), raw(x.goes_left_bits));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, predict_query& x) {
  return f(caf::meta::type_name("veil::protocols::plain::predict_query"),
           x.depth, raw(x.trees), raw(x.nodes), raw(x.offsets), raw(x.rows));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, predict_answer& x) {
  return f(caf::meta::type_name("veil::protocols::plain::predict_answer"),
           x.depth, raw(x.goes_left_bits));
}

} // namespace veil::protocols::plain

namespace veil::protocols::masked {

using veil::messages::exact;

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, params& x) {
  return f(caf::meta::type_name("veil::protocols::masked::params"),
           exact(x.epsilon_ap), exact(x.delta_ap), exact(x.epsilon_pp),
           exact(x.delta_pp), x.w, exact(x.mu), x.accounting, x.sensitivity,
           x.energy, x.split_gh, x.tail, x.lossless_check, x.seed,
           x.paillier_bits);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, applied& x) {
  return f(caf::meta::type_name("veil::protocols::masked::applied"),
           exact(x.epsilon0), exact(x.delta0), x.divided_over, exact(x.rho),
           exact(x.noise_stddev));
}

} // namespace veil::protocols::masked
