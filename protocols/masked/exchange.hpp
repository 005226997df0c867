#pragma once

// MaskedXGBoost's exchange at one tree level (spec maskedxgboost §4.5–4.6,
// M1–M3), the two halves without I/O. The vertical XGBoost roles
// (protocols/plain/) carry their results as messages.
//
//   PP: candidates of each node, and a noise matrix B_i per candidate
//       (Algorithm 1)                                         -> M1 to AP
//   AP: ⟨g⟩_i = g + B_i c_i, ⟨h⟩_i = h + B_i d_i, with G, H (Algorithm 2)
//                                                              -> M2 to PP
//   PP: every candidate's score from mᵀ⟨g⟩_i, mᵀ⟨h⟩_i; the best one
//       (Algorithm 3)                                          -> M3 to AP
//
// Each candidate's randomness comes from its own ChaCha20 stream, keyed
// from the party's generator before the candidates are processed in
// parallel: the result does not depend on the threads.

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "learners/binning/bin_matrix.hpp"
#include "learners/tree/tree_params.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/masked/params.hpp"

namespace veil::protocols::masked {

/// A candidate split of the PP's: rows with bin <= `bin` of `feature` go
/// left (missing ones too iff `default_left`). `left` counts them.
struct candidate {
  std::int32_t feature = 0;
  std::int32_t bin = 0;
  bool default_left = false;
  std::uint32_t left = 0;
};

/// The candidates of a node with rows on both sides, in the order XGBoost
/// enumerates them (feature by feature; missing values right over
/// ascending bins, then, when the node has missing values, left over
/// descending bins): the order that breaks ties.
std::vector<candidate> node_candidates(const learners::bin_matrix& bins,
                                       std::span<const std::uint32_t> rows);

/// A bound on the candidates of any node: 2 max_bin - 1 per feature
/// (missing values right, then left). Both the passive party (which
/// reports it) and the coordinator (which prints the guarantee before
/// training) can compute it.
std::uint64_t max_candidates(std::uint64_t features, int max_bin);

/// The generator every party's noise comes from: the OS's CSPRNG, or, with
/// a seed, a predictable ChaCha20 stream (tests, experiments) whose key
/// also depends on `stream` so that two parties never share one.
class noise_source {
public:
  noise_source(std::uint64_t seed, std::uint64_t stream);
  /// A fresh 32-byte key for one candidate's stream.
  crypto::key32 next_key();

private:
  std::unique_ptr<crypto::system_random> system_; // not movable itself
  std::optional<crypto::seeded_random> seeded_;
};

/// Algorithm 1 for the `candidates` of a node whose rows (ascending) are
/// `rows`: b = u + v + r per column, the left rows' u a cyclic difference,
/// the right rows' v + r drawn at once (N(0, 2σ1² + σ2²): the same law).
/// Writes `noise` (M1): W columns of the node's length per candidate,
/// candidate after candidate.
void make_noise(const learners::bin_matrix& bins,
                std::span<const std::uint32_t> rows,
                std::span<const candidate> candidates, const calibration& c,
                noise_source& source, int threads, std::span<double> noise);

/// Algorithm 2 for one node: from the node's released gradients and
/// hessians (clipped, by row) and its noise, ⟨g⟩_i then ⟨h⟩_i (the node's
/// length each) per candidate, appended to `out`; returns (G, H) of the
/// released values. `left` holds the left counts (energy_mode::adaptive)
/// or is empty.
std::pair<double, double> mask_gradients(
    std::span<const double> released_g, std::span<const double> released_h,
    std::span<const std::uint32_t> rows, std::span<const double> noise,
    std::span<const std::uint32_t> left, std::size_t candidates,
    const params& p, const calibration& c, noise_source& source, int threads,
    std::vector<double>& out);

/// Algorithm 3 for one node: the PP's best candidate from the masked
/// vectors (as mask_gradients lays them out) and the exact G, H, scored as
/// learners::best_split scores (min_child_weight on the noisy hessian
/// sums, gains rounded to float, first candidate wins ties); none if no
/// candidate qualifies.
struct scored {
  std::size_t index = 0;
  double gain = 0;
};
std::optional<scored> best_candidate(const learners::bin_matrix& bins,
                                     std::span<const std::uint32_t> rows,
                                     std::span<const candidate> candidates,
                                     std::span<const double> masked, double g,
                                     double h, const learners::tree_params& tp,
                                     int threads);

/// Whether `row` goes left under `c`.
inline bool goes_left(const learners::bin_matrix& bins, std::uint32_t row,
                      const candidate& c) {
  auto f = static_cast<std::size_t>(c.feature);
  int b = bins.bin(row, f);
  if (b == bins.layout().bins(f))
    return c.default_left;
  return b <= c.bin;
}

} // namespace veil::protocols::masked
