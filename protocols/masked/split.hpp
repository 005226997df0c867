#pragma once

// MaskedXGBoost's split scores (spec maskedxgboost §3.2, §4.5) and the
// attack that shows what the passive party learns (§5.6(1)).
//
// Algorithm 3: the passive party (PP) scores its candidate i from the
// noised vectors the active party (AP) returns, through its splitting
// vector m: gL = mᵀ⟨g⟩_i, which the structured noise does not touch.

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace veil::protocols::masked {

/// Eq. 8 without γ: ½ (gL²/(hL + λ) + gR²/(hR + λ) − G²/(H + λ)) with
/// gR = G − gL, hR = H − hL; none when a denominator is not positive (a
/// noisy hessian sum can make it so: the candidate is skipped, §4.5 [D]).
std::optional<double> split_score(double g_left, double h_left, double g,
                                  double h, double lambda);

/// The PP's score of candidate m from ⟨g⟩, ⟨h⟩ and the exact node sums G,
/// H (Algorithm 3): split_score(mᵀ⟨g⟩, mᵀ⟨h⟩, G, H, λ).
std::optional<double> noisy_split_score(std::span<const std::uint8_t> m,
                                        std::span<const double> noised_g,
                                        std::span<const double> noised_h,
                                        double g, double h, double lambda);

/// The PP's least-squares attack (§5.6(1)): the PP made B_1 and B_2 (n × W
/// each, column-major) and receives ⟨g⟩_1 = g + B_1 c_1 and
/// ⟨g⟩_2 = g + B_2 c_2 for two candidates. Their difference
/// [B_1, −B_2][c_1; c_2] is n equations in 2W unknowns: it solves them and
/// returns g = ⟨g⟩_1 − B_1 c_1. Theorem 2's guarantee assumes the B's are
/// unknown to whoever sees ⟨g⟩: it does not hold against the PP.
std::vector<double> recover_gradients(std::span<const double> b1,
                                      std::span<const double> b2,
                                      std::span<const double> noised1,
                                      std::span<const double> noised2, int w);

} // namespace veil::protocols::masked
