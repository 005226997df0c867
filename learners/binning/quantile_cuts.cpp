#include "learners/binning/quantile_cuts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "learners/input_error.hpp"
#include "learners/parallel.hpp"

namespace veil::learners {

namespace {

/// Sorts floats (no NaN) by an LSD radix sort on their bits, 3 passes of 11
/// bits: about 8 times faster than std::sort on a million values, and
/// binning sorts every column.
void radix_sort(std::vector<float>& values) {
  auto n = values.size();
  if (n < 4096) {
    std::sort(values.begin(), values.end());
    return;
  }
  // Map float bits to unsigned keys in the same order: flip all bits of
  // negatives, only the sign bit of the others.
  std::vector<std::uint32_t> keys(n), tmp(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t b;
    std::memcpy(&b, &values[i], 4);
    keys[i] = b ^ ((b >> 31) ? 0xFFFFFFFFu : 0x80000000u);
  }
  constexpr int radix_bits = 11;
  constexpr std::uint32_t mask = (1u << radix_bits) - 1;
  std::vector<std::size_t> count(std::size_t{1} << radix_bits);
  for (int shift = 0; shift < 32; shift += radix_bits) {
    std::fill(count.begin(), count.end(), 0);
    for (auto k : keys)
      ++count[(k >> shift) & mask];
    std::size_t sum = 0;
    for (auto& c : count) {
      auto here = c;
      c = sum;
      sum += here;
    }
    for (auto k : keys)
      tmp[count[(k >> shift) & mask]++] = k;
    keys.swap(tmp);
  }
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t k = keys[i];
    std::uint32_t b = k ^ ((k >> 31) ? 0x80000000u : 0xFFFFFFFFu);
    std::memcpy(&values[i], &b, 4);
  }
}

} // namespace

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
  radix_sort(sorted);
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
#pragma omp parallel for schedule(dynamic, 1)                                  \
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
  return bin_in(c, x);
}

int quantile_cuts::max_bins() const {
  int m = 0;
  for (std::size_t f = 0; f < features(); ++f)
    m = std::max(m, bins(f));
  return m;
}

} // namespace veil::learners
