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
typename Inspector::result_type inspect(Inspector& f, setup& x) {
  return f(caf::meta::type_name("veil::protocols::plain::setup"), x.max_bin,
           x.threads);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, setup_done& x) {
  return f(caf::meta::type_name("veil::protocols::plain::setup_done"),
           raw(x.bins_per_feature));
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
