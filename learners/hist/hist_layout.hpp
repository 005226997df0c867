#pragma once

#include <cstdint>
#include <vector>

namespace veil::learners {

/// Where each feature's bins sit in a flat histogram. Feature f owns the
/// slots [offset(f), offset(f+1)): its non-missing bins, then one slot for
/// rows whose value is missing.
class hist_layout {
public:
  hist_layout() = default;

  /// A layout from the number of non-missing bins of each feature.
  explicit hist_layout(const std::vector<int>& bins_per_feature) {
    offsets_.push_back(0);
    for (int b : bins_per_feature)
      offsets_.push_back(offsets_.back() + static_cast<std::uint32_t>(b) + 1);
  }

  std::size_t features() const {
    return offsets_.empty() ? 0 : offsets_.size() - 1;
  }
  std::uint32_t offset(std::size_t f) const { return offsets_[f]; }
  /// Non-missing bins of feature f.
  int bins(std::size_t f) const {
    return static_cast<int>(offsets_[f + 1] - offsets_[f]) - 1;
  }
  /// The slot that counts rows with a missing value of feature f.
  std::uint32_t missing_slot(std::size_t f) const {
    return offsets_[f + 1] - 1;
  }
  std::uint32_t slots() const { return offsets_.empty() ? 0 : offsets_.back(); }

private:
  std::vector<std::uint32_t> offsets_;
};

} // namespace veil::learners
