#pragma once

// ε-LDP releases of a vector in [−1, 1]^D (spec ldp-boosting §3.3–3.7):
// the data owners' three mechanisms in LDP boosting, each unbiased.
//
// - piecewise_vector (Wang et al., Alg. 3 of the paper): k = max(1,
//   min(D, ⌊ε/2.5⌋)) coordinates drawn without replacement, each released
//   by the 1-D Piecewise mechanism at ε/k and scaled by D/k; the others 0.
// - duchi_vector (Duchi et al.'s multi-dimensional mechanism, the paper's
//   ref. 24): a vertex of {−B, +B}^D on the input's side with probability
//   e^ε/(e^ε + 1), drawn without enumerating 2^D vertices.
// - laplace_vector: t + Lap(2D/ε) per coordinate (the budget split evenly).
//
// Continuous outputs from 53-bit uniforms of the CSPRNG (as piecewise.hpp:
// no exact integer sampler exists for a continuous output); they are the
// paper's mechanisms, kept as they are. Inputs are clamped to [−1, 1].

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/accountant.hpp"
#include "protocols/dp/bernoulli.hpp"
#include "protocols/dp/piecewise.hpp"

namespace veil::protocols::dp {

namespace detail {
inline double clamp1(double t) {
  return std::clamp(t, -1.0, 1.0);
}
/// k distinct indices of [0, d), uniformly (partial Fisher–Yates).
template <class Engine>
std::vector<std::size_t> choose(Engine& g, std::size_t d, std::size_t k) {
  std::vector<std::size_t> idx(d);
  for (std::size_t i = 0; i < d; ++i)
    idx[i] = i;
  for (std::size_t i = 0; i < k; ++i)
    std::swap(idx[i], idx[i + uniform_below(g, d - i)]);
  idx.resize(k);
  return idx;
}
} // namespace detail

class piecewise_vector {
public:
  /// Throws std::invalid_argument unless ε > 0 is finite and D ≥ 1.
  piecewise_vector(double epsilon, std::size_t dimension);

  template <class Engine>
  std::vector<double> operator()(Engine& g, std::span<const double> t) const {
    std::vector<double> out(d_, 0.0);
    double scale = static_cast<double>(d_) / static_cast<double>(k_);
    for (auto j : detail::choose(g, d_, k_))
      out[j] = scale * one_(g, detail::clamp1(t[j]));
    return out;
  }
  /// Coordinates released (k).
  std::size_t released() const { return k_; }
  /// Var of one coordinate's release for input t.
  double variance(double t) const;
  privacy_cost cost() const;

private:
  double epsilon_;
  std::size_t d_, k_;
  piecewise one_;
};

class duchi_vector {
public:
  duchi_vector(double epsilon, std::size_t dimension);

  /// v_j = ±1 with P(+1) = (1 + t_j)/2; then a = #{j : s_j = v_j} drawn ∝
  /// binom(D, a) over the side's half (a ≥ D/2 for T+, a ≤ D/2 for T−: a
  /// tie z·v = 0 belongs to both), a uniform subset of a coordinates
  /// agreeing with v, B s.
  template <class Engine>
  std::vector<double> operator()(Engine& g, std::span<const double> t) const {
    std::vector<double> v(d_);
    for (std::size_t j = 0; j < d_; ++j)
      v[j] = crypto::uniform_open01(g) < (1 + detail::clamp1(t[j])) / 2 ? 1.0
                                                                        : -1.0;
    bool upper = crypto::uniform_open01(g) < p_upper_;
    const auto& cdf = upper ? upper_cdf_ : lower_cdf_;
    double u = crypto::uniform_open01(g) * cdf.back();
    auto at = static_cast<std::size_t>(
        std::upper_bound(cdf.begin(), cdf.end(), u) - cdf.begin());
    at = std::min(at, cdf.size() - 1);
    std::size_t a = upper ? (d_ + 1) / 2 + at : at;
    std::vector<double> out(d_);
    for (std::size_t j = 0; j < d_; ++j)
      out[j] = -b_ * v[j];
    for (auto j : detail::choose(g, d_, a))
      out[j] = b_ * v[j];
    return out;
  }
  /// B: every output coordinate is ±B.
  double bound() const { return b_; }
  /// C_D of the spec's table.
  static double c_d(std::size_t dimension);
  double variance(double t) const { return b_ * b_ - t * t; }
  privacy_cost cost() const;

private:
  double epsilon_;
  std::size_t d_;
  double b_;
  double p_upper_;
  /// Cumulative weights ∝ binom(D, a) of a over T+ (a from ⌈D/2⌉ to D)
  /// and T− (a from 0 to ⌊D/2⌋).
  std::vector<double> upper_cdf_, lower_cdf_;
};

class laplace_vector {
public:
  laplace_vector(double epsilon, std::size_t dimension);

  template <class Engine>
  std::vector<double> operator()(Engine& g, std::span<const double> t) const {
    std::vector<double> out(d_);
    for (std::size_t j = 0; j < d_; ++j) {
      // u uniform in (−½, ½) \ {0}; z = −b sgn(u) ln(1 − 2|u|).
      double u;
      do
        u = crypto::uniform_open01(g) - 0.5;
      while (u == 0 || u == 0.5 || u == -0.5);
      out[j] = detail::clamp1(t[j]) -
               scale_ * (u < 0 ? -1.0 : 1.0) * std::log1p(-2 * std::abs(u));
    }
    return out;
  }
  /// The scale 2D/ε of each coordinate's noise.
  double scale() const { return scale_; }
  double variance() const { return 2 * scale_ * scale_; }
  privacy_cost cost() const;

private:
  double epsilon_;
  std::size_t d_;
  double scale_;
};

} // namespace veil::protocols::dp
