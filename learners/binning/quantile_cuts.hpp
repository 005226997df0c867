#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "learners/data/dataset.hpp"

namespace veil::learners {

/// Per-feature bin boundaries with XGBoost's `HistogramCuts` meaning: the cuts
/// of a feature are strictly increasing upper bounds, a value x falls in bin
/// `#{cuts <= x}` (clamped to the last bin), and a split at bin b sends x left
/// iff x < cuts[b]. So a split exports to XGBoost as the threshold cuts[b].
/// The bin of a present value x among non-empty `cuts`: #{cuts <= x},
/// clamped to the last bin. Branch-free, as binning calls it for every
/// value of the data.
inline int bin_in(std::span<const float> cuts, float x) {
  const float* first = cuts.data();
  std::size_t n = cuts.size();
  while (n > 1) {
    std::size_t half = n / 2;
    first = first[half] <= x ? first + half : first;
    n -= half;
  }
  auto b = (first - cuts.data()) + (*first <= x ? 1 : 0);
  return static_cast<int>(std::min<std::ptrdiff_t>(b, cuts.size() - 1));
}

class quantile_cuts {
public:
  quantile_cuts() = default;

  /// Cuts of every column of `d`, at most `max_bin` bins per feature. A
  /// column with k <= max_bin distinct values gets one bin per value;
  /// otherwise the cut points are the sorted-sample quantiles at ranks
  /// floor(i * n / max_bin), i = 1 .. max_bin - 1, then deduplicated.
  static quantile_cuts compute(const dataset& d, int max_bin, int threads = 1);

  /// The cuts of one column (missing values ignored).
  static std::vector<float> column_cuts(std::span<const float> values,
                                        int max_bin);

  /// Builds cuts from explicit per-feature boundaries (model loading, tests).
  static quantile_cuts from_columns(const std::vector<std::vector<float>>& c);

  std::size_t features() const {
    return offsets_.empty() ? 0 : offsets_.size() - 1;
  }
  /// Number of non-missing bins of feature f (0 when it has no values).
  int bins(std::size_t f) const {
    return static_cast<int>(offsets_[f + 1] - offsets_[f]);
  }
  std::span<const float> cuts(std::size_t f) const {
    return {values_.data() + offsets_[f], values_.data() + offsets_[f + 1]};
  }
  /// Bin of x for feature f, or -1 when x is missing.
  int bin_of(std::size_t f, float x) const;
  /// The threshold a split at `bin` exports: go left iff x < threshold.
  float threshold(std::size_t f, int bin) const {
    return values_[offsets_[f] + bin];
  }
  int max_bins() const;

private:
  std::vector<float> values_;
  std::vector<std::uint32_t> offsets_;
};

} // namespace veil::learners
