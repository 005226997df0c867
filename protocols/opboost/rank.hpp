#pragma once

// Dense ranks (spec opboost §5.3): the k-th smallest distinct value gets rank
// k, from 0; equal values share a rank and ranks have no gaps.

#include <cstdint>
#include <span>
#include <vector>

namespace veil::protocols::opboost {

struct dense_ranking {
  /// One rank per input value.
  std::vector<std::int32_t> ranks;
  /// The distinct values in increasing order: values[rank] is the value.
  std::vector<std::int64_t> values;
};

/// Dense ranks of `values`. Example: [10, 5, 8, 0, 5, 8] -> [3, 1, 2, 0, 1, 2].
dense_ranking dense_rank(std::span<const std::int64_t> values);

} // namespace veil::protocols::opboost
