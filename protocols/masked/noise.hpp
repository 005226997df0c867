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

/// Algorithm 1 for one splitting vector m (1 = left, `left` ones) as the
/// protocol draws it (exchange.hpp's make_noise calls it): `w` columns
/// into `out` (m.size() × w, column-major). Per column, one N(0, σ1²) draw
/// per left row gives the left rows' cyclic difference u, plus σ2 z; a
/// right row's v + r is one N(0, 2σ1² + σ2²) draw, the same law as drawing
/// v and r apart (noise_column takes them apart, for Example 2). `p` and
/// `z` are scratch.
template <class Engine>
void fill_noise(std::span<const std::uint8_t> m, std::size_t left,
                double sigma1, double sigma2, int w, Engine& rng,
                std::span<double> out, std::vector<double>& p,
                std::vector<double>& z) {
  auto n = m.size();
  double right_sd = std::sqrt(2 * sigma1 * sigma1 + sigma2 * sigma2);
  p.resize(left);
  z.resize(n);
  for (std::size_t k = 0; k < static_cast<std::size_t>(w); ++k) {
    dp::fill_standard_normal(rng, p);
    dp::fill_standard_normal(rng, z);
    double* b = out.data() + k * n;
    std::size_t j = 0; // index among the left rows
    for (std::size_t r = 0; r < n; ++r) {
      if (m[r]) {
        double prev = p[j == 0 ? left - 1 : j - 1];
        b[r] = sigma1 * (p[j] - prev) + sigma2 * z[r];
        ++j;
      } else {
        b[r] = right_sd * z[r];
      }
    }
  }
}

/// B for m: fill_noise with fresh draws from `rng` (std-style 64-bit
/// engine), n × w, column-major.
template <class Engine>
std::vector<double> noise_matrix(std::span<const std::uint8_t> m, double sigma1,
                                 double sigma2, int w, Engine& rng) {
  std::size_t left = 0;
  for (auto x : m)
    left += x != 0;
  std::vector<double> b(m.size() * static_cast<std::size_t>(w));
  std::vector<double> p, z;
  fill_noise(m, left, sigma1, sigma2, w, rng, b, p, z);
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
