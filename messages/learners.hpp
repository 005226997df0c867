#pragma once

// inspect() overloads for the learners' types that cross an actor boundary:
// gradient pairs and sums (inside protocol messages), the booster settings
// (train requests) and models (training outcomes). Reopens veil::learners so
// that argument-dependent lookup finds them; learners/ itself stays CAF-free.

#include <caf/meta/type_name.hpp>

#include "learners/boost/booster.hpp"
#include "learners/boost/model.hpp"
#include "learners/hist/gradients.hpp"
#include "learners/tree/regression_tree.hpp"
#include "learners/tree/tree_params.hpp"
#include "messages/raw_block.hpp"

namespace veil::learners {

using veil::messages::exact;
using veil::messages::raw;

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, grad_pair& x) {
  return f(caf::meta::type_name("veil::learners::grad_pair"), exact(x.g),
           exact(x.h));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, grad_sum& x) {
  return f(caf::meta::type_name("veil::learners::grad_sum"), exact(x.g),
           exact(x.h));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tree_params& x) {
  return f(caf::meta::type_name("veil::learners::tree_params"), x.max_depth,
           exact(x.eta), exact(x.lambda), exact(x.gamma),
           exact(x.min_child_weight), exact(x.max_delta_step), x.oblivious);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, booster_params& x) {
  return f(caf::meta::type_name("veil::learners::booster_params"), x.objective,
           x.num_class, x.rounds, x.tree, x.max_bin, x.threads,
           exact(x.base_score), x.early_stopping_rounds, x.eval_train, x.leaf,
           x.eval_rounds);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, tree_node& x) {
  return f(caf::meta::type_name("veil::learners::tree_node"), x.left, x.right,
           x.parent, x.feature, x.bin, exact(x.threshold), x.default_left,
           exact(x.value), exact(x.gain), exact(x.sum_hess), x.owner);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, regression_tree& x) {
  return f(caf::meta::type_name("veil::learners::regression_tree"), x.nodes,
           x.target);
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, early_stop_outcome& x) {
  return f(caf::meta::type_name("veil::learners::early_stop_outcome"),
           x.patience, x.stopped, x.last_round, x.best_round, x.metric,
           exact(x.best_score));
}

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, model& x) {
  return f(caf::meta::type_name("veil::learners::model"), x.objective,
           x.num_class, raw(x.base_margin), x.feature_names, x.weak_learner,
           x.trees);
}

} // namespace veil::learners
