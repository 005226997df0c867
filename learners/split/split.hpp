#pragma once

#include <cmath>
#include <cstdint>
#include <span>

#include "learners/hist/gradients.hpp"
#include "learners/hist/hist_layout.hpp"
#include "learners/tree/tree_params.hpp"

namespace veil::learners {

/// -G / (H + lambda), clamped to [-max_delta_step, max_delta_step] when
/// max_delta_step != 0 (XGBoost 1.7's CalcWeight without its hessian test;
/// FEVERLESS applies it to noisy sums).
inline double clamped_weight(const grad_sum& s, double lambda,
                             double max_delta_step) {
  double w = -s.g / (s.h + lambda);
  if (max_delta_step != 0 && std::abs(w) > max_delta_step)
    w = std::copysign(max_delta_step, w);
  return w;
}

/// G^2 / (H + lambda); when max_delta_step != 0, the score of the clamped
/// weight w, -(2 G w + (H + lambda) w^2), which equals G^2 / (H + lambda)
/// unless w was clamped (XGBoost 1.7's CalcGain and CalcGainGivenWeight
/// without the hessian test).
inline double weight_score(const grad_sum& s, double lambda,
                           double max_delta_step) {
  if (max_delta_step == 0)
    return (s.g * s.g) / (s.h + lambda);
  double w = clamped_weight(s, lambda, max_delta_step);
  return -(2 * s.g * w + (s.h + lambda) * w * w);
}

/// The optimal leaf weight (clamped_weight); 0 when the hessian is below
/// min_child_weight (XGBoost 1.7's CalcWeight, param.h).
inline double calc_weight(const tree_params& p, const grad_sum& s) {
  if (s.h < p.min_child_weight || s.h <= 0)
    return 0;
  return clamped_weight(s, p.lambda, p.max_delta_step);
}

/// The score of a node (weight_score); 0 when the hessian is below
/// min_child_weight (XGBoost 1.7's CalcGain, param.h).
inline double calc_gain(const tree_params& p, const grad_sum& s) {
  if (s.h < p.min_child_weight || s.h <= 0)
    return 0;
  return weight_score(s, p.lambda, p.max_delta_step);
}

/// A split's loss reduction as candidates are compared: rounded to float,
/// as XGBoost stores it, so that near-ties resolve the same way there.
inline double split_gain(double exact) {
  return static_cast<float>(exact);
}

/// A candidate split of a node: feature `feature` (index within the
/// histogram layout it was found in), left iff bin <= `bin`, missing values
/// left iff `default_left`.
struct split_candidate {
  double gain = 0; ///< loss reduction: gain(L) + gain(R) - gain(parent)
  std::int32_t feature = -1;
  std::int32_t bin = -1;
  bool default_left = false;
  grad_sum left;
  grad_sum right;

  bool valid() const { return feature >= 0; }

  /// A strict total order, so that every party picks the same split: higher
  /// gain first; on equal gains the lower feature (XGBoost's and LightGBM's
  /// tie-break), then the candidate XGBoost's enumeration meets first:
  /// missing-right before missing-left, ascending bins for missing-right,
  /// descending bins for missing-left.
  bool better_than(const split_candidate& o) const {
    if (!o.valid())
      return valid();
    if (!valid())
      return false;
    if (gain != o.gain)
      return gain > o.gain;
    if (feature != o.feature)
      return feature < o.feature;
    if (default_left != o.default_left)
      return !default_left;
    return default_left ? bin > o.bin : bin < o.bin;
  }
};

/// The best split of one node over the features of `layout`, given the
/// node's histogram and gradient sum. Enumerates XGBoost's two directions:
/// missing values right, then missing values left (only when the node has
/// any missing value).
/// Candidates whose children miss min_child_weight are skipped; the result
/// may have gain <= 0 and is invalid when no candidate qualifies.
split_candidate best_split(const tree_params& p, const hist_layout& layout,
                           std::span<const grad_sum> hist,
                           const grad_sum& node_sum);

/// The best split shared by all nodes of a level (decision tables): the
/// candidate that maximises the sum over nodes of each node's gain. A node
/// where the candidate violates min_child_weight contributes 0 but is still
/// split, as a decision table splits every node of a level the same way.
/// left/right of the result are summed over the nodes.
split_candidate
best_shared_split(const tree_params& p, const hist_layout& layout,
                  std::span<const std::span<const grad_sum>> hists,
                  std::span<const grad_sum> node_sums);

} // namespace veil::learners
