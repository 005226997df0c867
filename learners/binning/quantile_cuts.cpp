#include "learners/binning/quantile_cuts.hpp"

#include <algorithm>
#include <cmath>

#include "learners/input_error.hpp"
#include "learners/parallel.hpp"

namespace veil::learners {

std::vector<float> quantile_cuts::column_cuts(std::span<const float> values,
                                              int max_bin) {
  std::vector<float> sorted;
  sorted.reserve(values.size());
  for (float x : values)
    if (!is_missing(x))
      sorted.push_back(x);
  std::vector<float> cuts;
  if (sorted.empty())
    return cuts;
  std::sort(sorted.begin(), sorted.end());
  const auto n = sorted.size();
  const float top = sorted.back();
  // Count the distinct values in place: std::unique would leave the tail of
  // `sorted` unspecified (in practice, with the duplicates it overwrote
  // lost), and the quantiles below need every sample.
  std::size_t distinct = 1;
  for (std::size_t i = 1; i < n; ++i)
    distinct += sorted[i] != sorted[i - 1] ? 1 : 0;
  if (distinct <= static_cast<std::size_t>(max_bin)) {
    // One bin per value: the upper bound of a value's bin is the next value.
    cuts.reserve(distinct);
    for (std::size_t i = 1; i < n; ++i)
      if (sorted[i] != sorted[i - 1])
        cuts.push_back(sorted[i]);
  } else {
    for (int i = 1; i < max_bin; ++i) {
      float c = sorted[(static_cast<std::size_t>(i) * n) / max_bin];
      // A cut equal to the minimum would leave bin 0 empty.
      if (c > sorted.front() && (cuts.empty() || c > cuts.back()))
        cuts.push_back(c);
    }
  }
  // The last bound lies above the maximum, as XGBoost's does, so that every
  // training value is strictly below some cut.
  cuts.push_back(top + (std::fabs(top) + 1e-5f));
  return cuts;
}

quantile_cuts quantile_cuts::compute(const dataset& d, int max_bin,
                                     int threads) {
  if (max_bin < 2 || max_bin > 65535)
    throw input_error("max_bin must be between 2 and 65535, got " +
                      std::to_string(max_bin));
  std::vector<std::vector<float>> per_feature(d.features());
#pragma omp parallel for schedule(dynamic, 1) \
  num_threads(threads_for(d.rows() * d.features() * 16, threads))
  for (std::size_t j = 0; j < d.features(); ++j)
    per_feature[j] = column_cuts(d.column(j), max_bin);
  return from_columns(per_feature);
}

quantile_cuts
quantile_cuts::from_columns(const std::vector<std::vector<float>>& c) {
  quantile_cuts out;
  out.offsets_.push_back(0);
  for (auto& col : c) {
    out.values_.insert(out.values_.end(), col.begin(), col.end());
    out.offsets_.push_back(static_cast<std::uint32_t>(out.values_.size()));
  }
  return out;
}

int quantile_cuts::bin_of(std::size_t f, float x) const {
  if (is_missing(x))
    return -1;
  auto c = cuts(f);
  if (c.empty())
    return -1;
  auto b = std::upper_bound(c.begin(), c.end(), x) - c.begin();
  return static_cast<int>(std::min<std::ptrdiff_t>(b, c.size() - 1));
}

int quantile_cuts::max_bins() const {
  int m = 0;
  for (std::size_t f = 0; f < features(); ++f)
    m = std::max(m, bins(f));
  return m;
}

} // namespace veil::learners
