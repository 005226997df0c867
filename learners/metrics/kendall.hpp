#pragma once

// Weighted Kendall's tau (OpBoost Def. 6.1, after Vigna; spec opboost §7.3):
// how well a randomized column s keeps the order of the raw column r, with
// pairs weighted by how far apart their raw values rank:
//   <r,s>_w = sum_{i<j} sgn(r_i - r_j) sgn(s_i - s_j) w(i,j),
//   w(i,j)  = |rank(r_i) - rank(r_j)|  (dense ranks of r).

#include <span>

namespace veil::learners {

struct weighted_kendall_result {
  /// The paper's definition: <r,s>_w / (sqrt(<r,r>_w) sqrt(<s,s>_w)).
  double tau = 0;
  /// The reference code's "tau_dr": <r,s>_w / <r,r>_w, i.e. as if ties in s
  /// did not shrink <s,s>_w. tau >= tau_dr whenever <r,s>_w > 0.
  double tau_dr = 0;
  /// The three sums (exact integers, as long double).
  long double rs = 0;
  long double rr = 0;
  long double ss = 0;
};

/// Both taus in O(n log n): pairs by increasing r, two Fenwick trees over the
/// ranks of s (counts and sums of r's dense ranks). NaN taus when a
/// denominator is 0 (r or s constant). Throws veil::input_error when the
/// lengths differ or a value is NaN.
weighted_kendall_result weighted_kendall(std::span<const double> r,
                                         std::span<const double> s);

} // namespace veil::learners
