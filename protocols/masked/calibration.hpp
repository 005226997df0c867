#pragma once

// MaskedXGBoost's calibration, S1 (spec maskedxgboost §5): from the two
// parties' budgets to the noise.
//
// - The passive party's (PP) (ε_PP, δ_PP) fix ρ = σ1²/σ2², the share of the
//   structured noise that the split scores do not see (Theorem 3, §5.3):
//   the largest ρ whose noise matrices B_i, W columns each, are
//   (ε_PP, δ_PP)-DP in both directions (the paper checks one).
// - The active party's (AP) (ε_AP, δ_AP) is divided over the releases an
//   instance takes part in (§5.4), and each candidate's noise energy C
//   follows from Theorem 2 (§5.2), or, as a labelled non-paper option, from
//   a record-level neighbour notion (§5.6(2)).
//
// σ2 = 1 throughout: everything else scales with C (§5.5).

#include <array>
#include <cstdint>
#include <string>

namespace veil::protocols::masked {

/// R(ε, δ) = 2(√(ln(1/δ) + ε) − √ln(1/δ))²: the largest s² for which a
/// Gaussian privacy loss N(s²/2, s²) stays within (ε, δ) by its Chernoff
/// tail (Theorem 2's right-hand side, in the form without cancellation).
double chernoff_budget(double epsilon, double delta);

/// a, b and c of Theorem 3 at ρ = σ1²/σ2².
struct theorem3_sums {
  double a = 0, b = 0, c = 0;
};

/// The finite sums over j = 0..n−1 (n ≥ 1), or the n → ∞ closed form
/// (n = 0): D = √(1 + 4ρ), a = ρ/D, x = (1 + 2ρ − D)/(2ρ), b = a x,
/// c = a x². Identical to 8 digits from n = 100.
theorem3_sums theorem3_abc(double rho, std::size_t n = 0);

/// The eigenvalues of Theorem 3's 3×3 matrix, ascending: a − c and the
/// roots of k² − (4b − a − c)k + 2(2b² − a² − ac). They are the non-zero
/// eigenvalues of Σ₂⁻¹Σ₁ − I (the forward direction).
std::array<double, 3> theorem3_eigenvalues(const theorem3_sums& s);

/// How P(Σ_j k_j y_j² ≥ t), y ~ N(0, I_3), is computed: on a midpoint grid
/// over the two smaller k's with the largest integrated in closed form
/// (spacing 0.02: the spec's ρ table to its 3 digits), or as the
/// closed-form upper bound (negative k's dropped, positive ones raised to
/// the largest; about 5% more conservative in ρ).
enum class tail_method { exact, bound };

/// The tail above. Needs the largest k > 0 (else 0 when t > 0).
double quadratic_tail(std::array<double, 3> k, double t, tail_method how);

/// δ of one noise matrix with `w` columns at ρ: w times the larger of the
/// forward tail (eigenvalues k) and the reverse one (−k/(1 + k)) at
/// t = 2ε/w − 2 ln 2, or 2ε/w − ln 2 with `tight_threshold` (the
/// appendix's last line). Infinite when t ≤ 0.
double pp_delta(double epsilon_pp, int w, double rho, tail_method how,
                bool tight_threshold = false);

/// The largest ρ in [1e-8, 1e4] with pp_delta ≤ δ_PP (bisection on log ρ).
/// Throws input_error naming both values if ε_PP ≤ w ln 2 (no ρ > 0 can
/// work: "W too large for ε_PP").
double choose_rho(double epsilon_pp, double delta_pp, int w, tail_method how,
                  bool tight_threshold = false);

/// k releases of (ε0, δ0) by advanced composition with slack δ′:
/// (ε0 √(2k ln(1/δ′)) + k ε0 (e^ε0 − 1), k δ0 + δ′).
std::pair<double, double> advanced_composition(double epsilon0, double delta0,
                                               std::uint64_t k,
                                               double delta_prime);

/// What the AP may spend on one release ⟨g⟩_i or ⟨h⟩_i.
struct release_budget {
  double epsilon = 0;
  double delta = 0;
  /// The releases an instance takes part in (the k it was divided by).
  std::uint64_t releases = 1;
  /// "advanced" or "basic" (whichever gave the larger ε0), or "none" (k 1).
  std::string composition = "none";
};

/// (ε, δ) over k releases: for k = 1 as is; otherwise the larger ε0 of
/// advanced composition (δ′ = δ/2, δ0 = δ/(2k), ε0 by bisection) and basic
/// composition (ε/k, δ/k).
release_budget per_release(double epsilon, double delta, std::uint64_t k);

/// How "each step" of the paper is read (§5.4; the report says which).
enum class accounting {
  per_release, ///< Theorem 2 literally: every release gets (ε_AP, δ_AP)
  per_step,    ///< one step per tree level (the default): k = T·D
  strict,      ///< every candidate vector, g and h: k = T·D·2·l_max
};

/// k of `mode` for T trees of depth D, at most `max_candidates` candidates
/// per node, `passive` passive parties (each gets its own releases).
std::uint64_t releases(accounting mode, int trees, int depth,
                       std::uint64_t max_candidates, int passive = 1);

/// Theorem 2's neighbour notion (the paper's: the whole gradient vector),
/// or one record's gradient (a labelled non-paper option, §5.6(2)).
enum class sensitivity { vector, record };

/// C of one candidate with n_active instances on its left and n_inactive
/// on its right (both n_v, 0 when the AP does not know them), gradients
/// bounded by μ, σ2 = 1 and σ1² = ρ:
/// vector: μ² (n_I/(2ρ + 1) + n_A) / R(ε0, δ0); record: μ² / R(ε0, δ0).
double noise_energy(double mu, double rho, std::uint64_t n_active,
                    std::uint64_t n_inactive, const release_budget& b,
                    sensitivity s);

} // namespace veil::protocols::masked
