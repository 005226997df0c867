#pragma once

// Pre-processing into the unified discrete domain (spec opboost §3): every
// numeric or ordinal feature is mapped to D⊥ = [L, R] with public constants,
// so that all features share one distance unit and the mechanisms work on
// integers only.

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "protocols/opboost/params.hpp"

namespace veil::protocols::opboost {

/// The public mapping constants of one feature. They are fixed in advance
/// (spec §3 [D]) and must be the same at prediction time; Party B announces
/// them in its schema so that Party A can pre-process new samples.
struct feature_map {
  /// Public bounds of the raw domain D; values are clamped to them.
  double lower = 0;
  double upper = 1;
  /// The public constant a missing value is replaced by before mapping
  /// (spec §3 [D]); NaN means `lower`.
  double fill = std::numeric_limits<double>::quiet_NaN();

  /// Throws veil::input_error (naming `feature`) unless lower < upper are
  /// finite and fill is NaN or finite.
  void validate(const std::string& feature) const;
};

/// B(x) = round(L + (x - lower) / (upper - lower) (R - L)), x clamped to
/// [lower, upper] first, rounding half up (spec §3, formula fixed [P-fix]).
/// A missing (NaN) x is replaced by the fill value.
std::int64_t map_value(const feature_map& m, const domain& d, double x);

/// map_value over a column.
std::vector<std::int64_t> map_column(const feature_map& m, const domain& d,
                                     std::span<const float> column);

/// Bounds taken from the data (the reference code's min/max [R]). This
/// leaks the column's range to whoever learns the mapping: use it only to
/// reproduce the paper.
feature_map fit_bounds(std::span<const float> column);

/// The code of an ordinal categorical value: its position in `levels`,
/// which lists the categories in their natural order (spec §3); -1 when
/// absent. Map the codes with lower = 0, upper = levels.size() - 1.
long ordinal_code(const std::vector<std::string>& levels,
                  const std::string& value);

} // namespace veil::protocols::opboost
