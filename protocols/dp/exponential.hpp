#pragma once

// The exponential mechanism with the distance score -|o - c| on an integer
// range (OpBoost's "EXP" sampler, spec opboost §4.0 (a)):
//   P(o) = exp(-h |o - c|) / S(c),  o in [lo, hi],  h = epsilon / 2.
// Sampled exactly with integer arithmetic only, in O(1) expected coins for
// every h and range, instead of the paper's inverse CDF over a floating-point
// table (which costs O(range) and underflows on large domains).
//
// Also: the closed-form log-probabilities, generic over the number type so
// that tests and the privacy report can evaluate them in high precision.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <type_traits>

#include "protocols/dp/accountant.hpp"
#include "protocols/dp/bernoulli.hpp"
#include "protocols/dp/discrete_laplace.hpp"
#include "protocols/dp/rational.hpp"

namespace veil::protocols::dp {

/// 1 - exp(-x) for x >= 0 without cancellation in double; in other number
/// types (high-precision tests) directly.
template <class Real>
Real one_minus_exp_neg(const Real& x) {
  if constexpr (std::is_floating_point_v<Real>) {
    return -std::expm1(-x);
  } else {
    using std::exp;
    return Real(1) - exp(-x);
  }
}

/// log S, S = sum_{o=lo}^{hi} exp(-h |o - c|), h > 0, for any integer c
/// (spec §4.0 (a), written without cancellation):
///   c inside:  S = ((1 - rho^(a+1)) + rho (1 - rho^b)) / (1 - rho),
///   c outside: S = rho^d (1 - rho^n) / (1 - rho),
/// with rho = e^-h, a = c - lo, b = hi - c, d the distance to the range and
/// n = hi - lo + 1.
template <class Real>
Real log_mass(const Real& h, std::int64_t lo, std::int64_t hi, std::int64_t c) {
  using std::exp;
  using std::log;
  Real denom = log(one_minus_exp_neg(h));
  if (c < lo || c > hi) {
    auto d = static_cast<double>(c < lo ? lo - c : c - hi);
    auto n = static_cast<double>(hi - lo) + 1;
    return -Real(d) * h + log(one_minus_exp_neg(Real(n) * h)) - denom;
  }
  auto a = static_cast<double>(c - lo);
  auto b = static_cast<double>(hi - c);
  Real num = one_minus_exp_neg(Real(a + 1) * h) +
             exp(-h) * one_minus_exp_neg(Real(b) * h);
  return log(num) - denom;
}

/// log P(o) of the law above (o in [lo, hi]).
template <class Real>
Real log_pmf(const Real& h, std::int64_t lo, std::int64_t hi, std::int64_t c,
             std::int64_t o) {
  auto d = static_cast<double>(o > c ? o - c : c - o);
  return -Real(d) * h - log_mass(h, lo, hi, c);
}

/// A rational as a Real.
template <class Real>
Real to_real(const rational& r) {
  return Real(static_cast<double>(r.num)) / Real(static_cast<double>(r.den));
}

/// The exponential mechanism with score -|o - c| on [lo, hi] and rate
/// h = epsilon / 2 (a rational): epsilon-dLDP (OpBoost Theorem 4.1).
///
/// Exact sampler, with a = c - lo, b = hi - c and M = max(a, b):
/// - short range (M h <= 1): o uniform in [lo, hi], kept with probability
///   exp(-h |o - c|) by an exact Bernoulli; acceptance S(c)/n >= e^-1;
/// - long range (M h > 1): o = c + Lap_Z(1/h), kept if in range; acceptance
///   >= (1 - e^-1)/2.
/// Both are rejection samplers of the same target law, so a draw is exact;
/// the expected number of rounds is below 3.2 whatever h and the range.
class exponential_mechanism {
public:
  /// Throws std::invalid_argument unless lo <= hi, h > 0 and hi - lo < 2^31.
  exponential_mechanism(std::int64_t lo, std::int64_t hi, rational h);

  /// One exact draw. A centre outside the range is moved to the nearer end
  /// (same law, see bounded_discrete_laplace).
  template <class Engine>
  std::int64_t operator()(Engine& g, std::int64_t centre) const {
    centre = clamp(centre);
    while (true)
      if (auto o = attempt(g, centre))
        return *o;
  }

  /// One rejection round for a centre in range: a value or nothing.
  template <class Engine>
  std::optional<std::int64_t> attempt(Engine& g, std::int64_t centre) const {
    if (short_range(centre)) {
      auto n = static_cast<std::uint64_t>(hi_ - lo_) + 1;
      auto o = lo_ + static_cast<std::int64_t>(uniform_below(g, n));
      auto d = static_cast<std::uint64_t>(o > centre ? o - centre : centre - o);
      if (!bernoulli_exp(g, d * h_.num, h_.den))
        return std::nullopt;
      return o;
    }
    std::int64_t o = centre + lap_(g);
    if (o < lo_ || o > hi_)
      return std::nullopt;
    return o;
  }

  /// Whether a centre uses the uniform proposal (M h <= 1).
  bool short_range(std::int64_t centre) const {
    auto m = static_cast<std::uint64_t>(std::max(centre - lo_, hi_ - centre));
    return static_cast<unsigned __int128>(m) * h_.num <= h_.den;
  }

  /// Probability that one round accepts, for a centre in range.
  double acceptance(std::int64_t centre) const;

  /// The closed-form P(o) (double).
  double pmf(std::int64_t centre, std::int64_t o) const;

  /// epsilon-dLDP with epsilon = 2h on [lo, hi] (Theorem 4.1).
  privacy_cost cost() const;

  std::int64_t lo() const { return lo_; }
  std::int64_t hi() const { return hi_; }
  rational rate() const { return h_; }

private:
  std::int64_t clamp(std::int64_t c) const {
    return c < lo_ ? lo_ : (c > hi_ ? hi_ : c);
  }

  std::int64_t lo_;
  std::int64_t hi_;
  rational h_;
  discrete_laplace lap_;
};

} // namespace veil::protocols::dp
