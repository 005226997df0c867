#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "learners/binning/quantile_cuts.hpp"
#include "learners/data/dataset.hpp"
#include "learners/hist/hist_layout.hpp"

namespace veil::learners {

/// The features of a dataset as small-integer bins, row-major, so that
/// building a histogram reads one contiguous row per sample. A missing value
/// is stored as bin `bins(f)`, the feature's missing slot in the histogram
/// layout. Bins are one byte when every stored value fits in one (at most
/// 256 bins, or 255 for a feature with missing values), two otherwise.
class bin_matrix {
public:
  bin_matrix() = default;

  bin_matrix(const dataset& d, const quantile_cuts& cuts, int threads = 1);

  std::size_t rows() const { return rows_; }
  std::size_t features() const { return features_; }
  const hist_layout& layout() const { return layout_; }
  bool wide() const { return !bins16_.empty(); }
  std::span<const std::uint8_t> narrow_bins() const { return bins8_; }
  std::span<const std::uint16_t> wide_bins() const { return bins16_; }
  /// Bin of (row, f); equal to layout().bins(f) when the value is missing.
  int bin(std::size_t row, std::size_t f) const {
    auto i = row * features_ + f;
    return wide() ? bins16_[i] : bins8_[i];
  }
  bool missing(std::size_t row, std::size_t f) const {
    return bin(row, f) == layout_.bins(f);
  }

  /// Calls fn with the bins as a span of the actual element type.
  template <class Fn>
  decltype(auto) visit(Fn&& fn) const {
    if (wide())
      return fn(std::span<const std::uint16_t>(bins16_));
    return fn(std::span<const std::uint8_t>(bins8_));
  }

private:
  std::size_t rows_ = 0;
  std::size_t features_ = 0;
  hist_layout layout_;
  std::vector<std::uint8_t> bins8_;
  std::vector<std::uint16_t> bins16_;
};

} // namespace veil::learners
