#pragma once

// A source client's split search over the (noisy) bucket sums of one of its
// features at one node (spec feverless §8.1, Alg. 2 l.19–21).

#include <cmath>
#include <cstdint>
#include <limits>
#include <span>

#include "learners/hist/gradients.hpp"
#include "learners/split/split.hpp"

namespace veil::protocols::feverless {

/// The best split of one feature (or of all a source's features).
struct bucket_split {
  /// L_split of the corrected Eq. 4 (spec §5):
  ///   1/2 [G_L²/(H_L+λ) + G_R²/(H_R+λ) − G²/(H+λ)] − γ,
  /// -infinity when no candidate passes the guards.
  double gain = -std::numeric_limits<double>::infinity();
  /// The bracket [...] above rounded to float: XGBoost's loss_chg.
  double loss_change = 0;
  std::int32_t feature = -1;
  /// Left iff bucket <= this; rows whose value is missing go left iff
  /// default_left.
  std::int32_t bucket = -1;
  bool default_left = false;
  learners::grad_sum left;
  learners::grad_sum right;

  bool valid() const { return feature >= 0; }
};

/// Bucket sums of one feature at one node: (noisy) G_z, H_z and the exact
/// number of the node's rows n_z in bucket z, z = 0 .. size-1. With
/// missing_slot the last entry holds the rows whose value is missing.
struct bucket_sums {
  std::span<const double> g;
  std::span<const double> h;
  std::span<const std::uint32_t> count;
  bool missing_slot = false;
};

/// The best candidate "split after bucket z" of `b`, in XGBoost 1.7's
/// order (learners::best_split): missing values right over ascending z,
/// then, when the node has rows with missing values, missing values left
/// over descending z; ties keep the first. Guards (spec §5, §8.1 [D]): skip a
/// candidate with an empty child (the source knows the counts exactly), or with
/// H_L+λ <= 0, H_R+λ <= 0 or H+λ <= 0 (noisy hessians).
///
/// [D] The bracket is learners::weight_score of left + right − parent
/// (G²/(H+λ) each) rounded to float before halving, as XGBoost and
/// learners::best_split round split gains: then with exact sums the gains,
/// their ties and the tie-breaks are those of centralized training.
///
/// With max_delta_step > 0 (XGBoost's, off by default and in the paper)
/// weight_score scores the clamped weight: noisy hessians near -λ then
/// cannot blow a gain or a leaf up. Post-processing of released sums, so
/// it costs no privacy.
bucket_split best_bucket_split(std::int32_t feature, const bucket_sums& b,
                               double lambda, double gamma,
                               double max_delta_step);

/// The leaf weight -G/(H+λ) of Eq. 5 (clamped as above); 0 when H+λ <= 0
/// (spec §5 guard) or when the quotient is not finite (a noisy H+λ just
/// above 0).
inline double leaf_weight(const learners::grad_sum& s, double lambda,
                          double max_delta_step) {
  if (!(s.h + lambda > 0))
    return 0;
  double w = learners::clamped_weight(s, lambda, max_delta_step);
  return std::isfinite(w) ? w : 0;
}

} // namespace veil::protocols::feverless
