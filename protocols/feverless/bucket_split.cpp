#include "protocols/feverless/bucket_split.hpp"

#include <cmath>

namespace veil::protocols::feverless {

bucket_split best_bucket_split(std::int32_t feature, const bucket_sums& b,
                               double lambda, double gamma,
                               double max_delta_step) {
  bucket_split best;
  auto slots = b.g.size();
  auto buckets = b.missing_slot ? slots - 1 : slots;
  if (buckets < 1)
    return best;
  learners::grad_sum total;
  std::uint64_t rows = 0;
  for (std::size_t z = 0; z < slots; ++z) {
    total.g += b.g[z];
    total.h += b.h[z];
    rows += b.count[z];
  }
  if (!(total.h + lambda > 0))
    return best;
  double parent = learners::weight_score(total, lambda, max_delta_step);
  auto consider = [&](std::size_t z, bool default_left,
                      const learners::grad_sum& left, std::uint64_t left_rows,
                      const learners::grad_sum& right) {
    if (left_rows == 0 || left_rows == rows)
      return;
    if (!(left.h + lambda > 0) || !(right.h + lambda > 0))
      return;
    double bracket = learners::weight_score(left, lambda, max_delta_step) +
                     learners::weight_score(right, lambda, max_delta_step) -
                     parent;
    double loss_change = static_cast<float>(bracket);
    double gain = 0.5 * loss_change - gamma;
    // Noisy hessians just above -lambda can blow a term up: such a
    // candidate is no candidate (peers refuse an infinite gain).
    if (!std::isfinite(gain))
      return;
    if (!best.valid() || gain > best.gain) {
      best.gain = gain;
      best.loss_change = loss_change;
      best.feature = feature;
      best.bucket = static_cast<std::int32_t>(z);
      best.default_left = default_left;
      best.left = left;
      best.right = right;
    }
  };
  // Missing values right: left = buckets 0..z.
  learners::grad_sum left;
  std::uint64_t left_rows = 0;
  for (std::size_t z = 0; z < buckets; ++z) {
    left.g += b.g[z];
    left.h += b.h[z];
    left_rows += b.count[z];
    consider(z, false, left, left_rows, total - left);
  }
  if (!b.missing_slot || b.count[buckets] == 0)
    return best;
  // Missing values left: right = buckets z+1..end.
  learners::grad_sum right;
  std::uint64_t right_rows = 0;
  for (std::size_t z = buckets - 1; z >= 1; --z) {
    right.g += b.g[z];
    right.h += b.h[z];
    right_rows += b.count[z];
    consider(z - 1, true, total - right, rows - right_rows, right);
  }
  return best;
}

} // namespace veil::protocols::feverless
