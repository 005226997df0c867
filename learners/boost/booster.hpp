#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "learners/boost/early_stopping.hpp"
#include "learners/boost/model.hpp"
#include "learners/data/dataset.hpp"
#include "learners/tree/tree_params.hpp"

namespace veil::learners {

/// How a round's tree sets its leaf values (and weighs its splits).
enum class leaf_rule {
  /// XGBoost's second-order step: w = -G / (H + lambda).
  newton,
  /// Gradient-only (Friedman's GBDT, spec opboost §5.4): every hessian is
  /// 1, so a tree is a least-squares fit to the negative gradients and
  /// w = -G / (n + lambda).
  gradient,
};

/// Settings of the boosting loop (XGBoost's names and defaults).
struct booster_params {
  objective_kind objective = objective_kind::binary_logistic;
  /// Classes for multi:softmax (>= 2); ignored otherwise.
  int num_class = 2;
  /// Boosting rounds (trees per output). [1, 100000].
  int rounds = 100;
  tree_params tree;
  /// Leaf values from gradients and hessians (newton) or gradients only.
  leaf_rule leaf = leaf_rule::newton;
  /// Maximum bins per feature. [2, 65535].
  int max_bin = 256;
  /// Worker threads. >= 1.
  int threads = 1;
  /// Initial prediction, as XGBoost's base_score: a probability for
  /// binary:logistic, a value for regression. NaN = fit it to the labels
  /// (logit of the positive rate / mean / log class frequencies).
  double base_score = std::numeric_limits<double>::quiet_NaN();
  /// Stop when the validation metric has not improved for this many rounds
  /// and keep the best rounds only. 0 = never stop early.
  int early_stopping_rounds = 0;
  /// Also evaluate the training set every round (costs a sort per round).
  bool eval_train = false;
  /// Evaluate the validation set every round: the history, the progress
  /// metrics, early stopping (which needs it). Off: no per-round cost (a
  /// sort per round; the plain protocol's federated prediction of each
  /// round's trees), metrics at the end only.
  bool eval_rounds = true;

  /// Throws input_error naming the first out-of-range field.
  void validate() const;
};

struct training_result {
  learners::model model;
  std::vector<round_info> history;
  /// 1-based round with the best validation metric (the last one without
  /// early stopping).
  int best_round = 0;
  /// Early stopping's metric, best round and whether it stopped (patience
  /// 0 when off or without a validation set).
  early_stop_outcome early_stop;
  double bin_seconds = 0;
  double train_seconds = 0;
};

/// Centralized gradient boosting: bins the training set once, then grows
/// `rounds` trees (or decision tables) per output. `valid`, when given, is
/// evaluated every round (the history's valid metrics) and watched by early
/// stopping; `on_round` is called after each round.
training_result
train(const dataset& train, const dataset* valid, const booster_params& p,
      const std::function<void(const round_info&)>& on_round = {});

} // namespace veil::learners
