#pragma once

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

#include "learners/boost/booster.hpp"
#include "learners/boost/model.hpp"

namespace veil::learners {

/// Margins of predicted rows after each round, for a history computed where
/// the labels are (a federated session's coordinator) from a prediction
/// made where the features are. Kept for rounds stride, 2 stride, ... and
/// the last, so that a long training sends a bounded number of values.
struct staged_margins {
  std::size_t stride = 1;
  /// Round-major; each kept round's margins output-major, summed in float
  /// in tree order as model::predict_margin does.
  std::vector<float> values;
};

/// The stride that keeps at most `budget` values when each round has
/// `values_per_round` (at least 1: every round).
std::size_t history_stride(std::size_t rounds, std::size_t values_per_round,
                           std::size_t budget = std::size_t{1} << 24);

/// How many values staged margins of `m` hold for `values` margins per
/// round (rows x outputs) at `stride`.
std::size_t staged_size(const model& m, std::size_t values, std::size_t stride);

/// The staged margins of `rows` rows of `m`, tree t's value for row i being
/// `leaf(t, i)`.
staged_margins
stage_margins(const model& m, std::size_t rows,
              const std::function<float(std::size_t, std::size_t)>& leaf);

/// The staged margins of the rows of `d` (columns matched by name).
staged_margins stage_margins(const model& m, const dataset& d);

/// The history (validation metrics per kept round) of rows with `labels`.
/// Throws std::invalid_argument if the sizes do not fit.
std::vector<round_info> staged_history(const model& m,
                                       std::span<const float> labels,
                                       const staged_margins& s);

} // namespace veil::learners
