#pragma once

// The attacks MaskedXGBoost's paper runs against each side (spec
// maskedxgboost §7.6–7.7) besides the least-squares one of split.hpp: the
// active party's subset attack on a splitting vector, the passive party's
// neural-network label inference, and the measures the audit reports them
// with.

#include <cstdint>
#include <span>
#include <vector>

#include "learners/mlp/regressor.hpp"

namespace veil::protocols::masked {

/// The active party's attack on a noise matrix B (n × W, column-major) of
/// a splitting vector with `left` ones (the attacker knows n_A, §7.7):
/// the set S of `left` rows minimising Σ_w |Σ_{j∈S} b_jw| (without
/// disturbing noise the true left set sums to exactly 0), by exhaustive
/// search; 1 for the rows in S. n at most 30.
std::vector<std::uint8_t> subset_attack(std::span<const double> b,
                                        std::size_t n, int w, std::size_t left);

/// What the passive party (PP) holds of one candidate at one node: its
/// splitting vector m (1 = left), its noise matrix B (n × W, column-major)
/// and the masked vectors ⟨g⟩, ⟨h⟩ the active party returned.
struct candidate_view {
  std::span<const std::uint8_t> m;
  std::span<const double> b;
  int w = 1;
  std::span<const double> masked_g;
  std::span<const double> masked_h;
};

/// The paper's label-inference attacker (§7.6, the spec's concrete
/// version): the PP fabricates training data like the real exchange —
/// labels at the public positive rate, predictions p′ uniform in
/// [1/(1+e), e/(1+e)], g′ = p′ − y′ and h′ = p′(1 − p′) clipped to μ/2,
/// masked by Algorithm 1 on its own m and Algorithm 2 with the real run's
/// C — fits a per-instance regressor from (⟨g⟩_j, ⟨h⟩_j, B_j·, m_j) to
/// (g_j, h_j), and applies it to the real transcript. The guess is
/// y = 1 where ĝ < 0.
struct nn_attack_settings {
  double positive_rate = 0.5;
  double mu = 2;     ///< the clipping bound of the released values
  double energy = 0; ///< C, as the active party applied it
  double sigma1 = 0, sigma2 = 1;
  int copies = 1; ///< fabricated rows per real row
  learners::mlp_params mlp;
  std::uint64_t seed = 1; ///< the fabricated data (the attacker's own)
};
struct nn_attack_result {
  std::vector<double> g;            ///< ĝ per row
  std::vector<std::uint8_t> labels; ///< 1 where ĝ < 0
  learners::mlp_history history;
};
nn_attack_result nn_label_attack(const candidate_view& real,
                                 const nn_attack_settings& s);

/// Share of positions where `guess` equals `truth`.
double bit_match(std::span<const std::uint8_t> guess,
                 std::span<const std::uint8_t> truth);

/// A binary guess against the truth: accuracy, balanced accuracy (the
/// mean of the two classes' recalls: 0.5 is chance) and the majority
/// class's share (what always guessing it scores).
struct label_score {
  double accuracy = 0;
  double balanced = 0;
  double majority = 0;
};
label_score score_labels(std::span<const std::uint8_t> guess,
                         std::span<const std::uint8_t> truth);

} // namespace veil::protocols::masked
