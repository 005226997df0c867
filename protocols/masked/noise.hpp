#pragma once

// MaskedXGBoost's two noises (spec maskedxgboost §4.3–4.4).
//
// Algorithm 1 (the passive party): for each candidate's splitting vector m
// (1 for the node's instances it sends left), W noise columns
// b = u + v + r. u is a cyclic first difference over the left instances, v
// lives on the right ones, so mᵀu = mᵀv = 0: the split score, a function
// of mᵀg, sees only r, the "disturbing" noise. Every coordinate has the
// same variance 2σ1² + σ2², so the marginals do not show m.
//
// Algorithm 2 (the active party): ⟨g⟩ = g + Σ_k c_k b_k with c on the
// sphere of radius √C (and likewise ⟨h⟩ with its own d).

#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "protocols/dp/gaussian.hpp"

namespace veil::protocols::masked {

/// One column b = u + v + r of Algorithm 1 for m (the node's instances in
/// ascending index), from given draws: p, one per left instance
/// (N(0, σ1²)); q, one per right instance (N(0, 2σ1²)); r, one per
/// instance (N(0, σ2²)). u[A_1] = p_1 − p_last, u[A_k] = p_k − p_{k−1}
/// over the left instances A in index order; v[I_k] = q_k. Throws
/// std::invalid_argument if the draws do not match m's counts.
std::vector<double> noise_column(std::span<const std::uint8_t> m,
                                 std::span<const double> p,
                                 std::span<const double> q,
                                 std::span<const double> r);

/// B for m: `w` columns of noise_column with fresh draws from `rng`
/// (std-style 64-bit engine), column after column (n × w, column-major).
template <class Engine>
std::vector<double> noise_matrix(std::span<const std::uint8_t> m, double sigma1,
                                 double sigma2, int w, Engine& rng) {
  std::size_t left = 0;
  for (auto x : m)
    left += x != 0;
  std::vector<double> b;
  b.reserve(m.size() * static_cast<std::size_t>(w));
  std::vector<double> p(left), q(m.size() - left), r(m.size());
  for (int k = 0; k < w; ++k) {
    for (auto& x : p)
      x = dp::gaussian(rng, sigma1);
    for (auto& x : q)
      x = dp::gaussian(rng, std::sqrt(2.0) * sigma1);
    for (auto& x : r)
      x = dp::gaussian(rng, sigma2);
    auto column = noise_column(m, p, q, r);
    b.insert(b.end(), column.begin(), column.end());
  }
  return b;
}

/// Algorithm 2's coefficients: `w` numbers with squares summing to
/// `energy`, in a uniform direction (√C z/‖z‖, z ~ N(0, I); for w = 1, ±√C).
template <class Engine>
std::vector<double> sphere_coefficients(int w, double energy, Engine& rng) {
  std::vector<double> c(static_cast<std::size_t>(w));
  double norm = 0;
  while (norm == 0) {
    norm = 0;
    for (auto& x : c) {
      x = dp::gaussian(rng, 1.0);
      norm += x * x;
    }
  }
  double scale = std::sqrt(energy / norm);
  for (auto& x : c)
    x *= scale;
  return c;
}

/// g + Σ_k c_k b_k for B column-major (g.size() rows, c.size() columns).
std::vector<double> add_noise(std::span<const double> g,
                              std::span<const double> b,
                              std::span<const double> c);

} // namespace veil::protocols::masked
