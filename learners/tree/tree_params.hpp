#pragma once

#include <string>

namespace veil::learners {

/// Hyper-parameters of one tree (XGBoost's names and defaults).
struct tree_params {
  /// Maximum depth; the root is at depth 0. Range [1, 30].
  int max_depth = 6;
  /// Learning rate: leaf values are eta times the optimal weight. (0, 1].
  double eta = 0.3;
  /// L2 regularization on leaf weights. >= 0.
  double lambda = 1.0;
  /// Minimum loss reduction to split a node (min_split_loss). >= 0.
  double gamma = 0.0;
  /// Minimum hessian sum in each child. >= 0.
  double min_child_weight = 1.0;
  /// Largest |leaf weight| before eta; 0 = no limit (XGBoost 1.7's
  /// max_delta_step: CalcWeight clamps, CalcGain scores the clamped weight).
  /// >= 0.
  double max_delta_step = 0.0;
  /// Grow a decision table (oblivious tree): one split shared by a level.
  bool oblivious = false;

  /// Throws veil::input_error naming the first out-of-range field.
  void validate() const;
};

} // namespace veil::learners
