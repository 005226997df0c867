#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "learners/hist/histogram.hpp"
#include "learners/tree/tree_grower.hpp"

namespace veil::learners {

/// For each row of `rows`: 1 when it goes left under the split (feature f of
/// `bins`, left iff bin <= `bin`, missing left iff `default_left`).
std::vector<std::uint8_t> route_rows(const bin_matrix& bins, std::size_t f,
                                     int bin, bool default_left,
                                     std::span<const std::uint32_t> rows);

/// Finds splits when one party holds every feature: histograms by the
/// subtraction trick, XGBoost's split enumeration, rows routed from the bin
/// matrix. This is centralized training's split step; federated protocols
/// replace it with message exchanges around the same pieces.
class local_split_finder {
public:
  local_split_finder(const bin_matrix& bins, const quantile_cuts& cuts,
                     const tree_params& p, int threads = 1);

  /// Forgets the previous tree's histograms.
  void start_tree();

  /// One decision per frontier node.
  std::vector<split_decision> decide(std::span<const node_request> frontier,
                                     std::span<const grad_pair> grads);

private:
  const bin_matrix& bins_;
  const quantile_cuts& cuts_;
  tree_params params_;
  int threads_;
  histogram_set hists_;
};

} // namespace veil::learners
