#pragma once

// MaskedXGBoost's two LDP baselines (spec maskedxgboost §6.2–6.3), on the
// same vertical XGBoost roles: once per tree the active party releases its
// clipped gradients with Gaussian noise (XGBoost-LDP: g and h;
// FedXGBoost-LDP: g only), and each passive party scores its candidates
// at every node from the noisy values and returns its best score, as in
// MaskedXGBoost (Algorithm 3's last step).

#include <cstdint>
#include <optional>
#include <span>

#include "learners/binning/bin_matrix.hpp"
#include "learners/tree/tree_params.hpp"
#include "protocols/masked/exchange.hpp"
#include "protocols/masked/params.hpp"

namespace veil::protocols::masked {

/// What one tree's release may spend and the noise it gets: the budget
/// divided over T releases per passive party (per_step; strict counts g and
/// h apart: 2T for XGBoost-LDP), g and h halved (split_gh) for XGBoost-LDP;
/// the standard deviation per coordinate s = √(n μ² / R(ε0, δ0)) for
/// vector neighbours, √(μ² / R) for record ones (Theorem 2 with σ1 = 0).
struct ldp_release {
  release_budget budget;
  double stddev = 0;
};

ldp_release ldp_calibrate(const params& p, std::uint64_t rows, int trees,
                          int passives, bool hessians);

/// The best of `candidates` at a node whose rows are `rows`, scored from
/// the noisy values by row (`h` empty: FedXGBoost-LDP's gradient-only
/// score with the rows counted in place of hessians). The node's sums are
/// the noisy ones too. Same rules as best_candidate (a non-positive
/// denominator or min_child_weight on noisy sums skips a candidate; the
/// first of equal gains wins).
std::optional<scored> best_noisy_candidate(
    const learners::bin_matrix& bins, std::span<const std::uint32_t> rows,
    std::span<const candidate> candidates, std::span<const double> g,
    std::span<const double> h, const learners::tree_params& tp);

} // namespace veil::protocols::masked
