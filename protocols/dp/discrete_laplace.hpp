#pragma once

// The discrete Laplace distribution Lap_Z and its bounded version by
// resampling (OpBoost Def. 4.8, Lemma 4.10 with the spec's fix; spec opboost
// §4.0 (b)-(c), §4.4, §8.3). Sampling is exact and integer-only: the scale is
// a rational and every coin is a Bernoulli(n/d) or Bernoulli(exp(-n/d))
// (Canonne, Kamath & Steinke 2020, Alg. 2).

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "protocols/dp/accountant.hpp"
#include "protocols/dp/bernoulli.hpp"
#include "protocols/dp/rational.hpp"

namespace veil::protocols::dp {

/// Lap_Z with P(z) = (1 - q)/(1 + q) q^|z| on all integers, where
/// q = exp(-rate) and rate = 1/lambda = s/t is a rational. Shaped like a std
/// distribution: operator()(engine) draws one value.
class discrete_laplace {
public:
  /// Throws std::invalid_argument unless rate > 0.
  explicit discrete_laplace(rational rate);

  /// One exact draw (CKS Alg. 2; expected O(1) coins for every rate).
  template <class Engine>
  std::int64_t operator()(Engine& g) const {
    while (true)
      if (auto z = attempt(g))
        return *z;
  }

  /// One pass of CKS Alg. 2's outer loop: a value, or nothing when the pass
  /// rejects. The law of an accepted value is Lap_Z: a draw is the first
  /// accepted attempt. Exposed so that tests can enumerate it exactly.
  template <class Engine>
  std::optional<std::int64_t> attempt(Engine& g) const {
    const std::uint64_t s = rate_.num, t = rate_.den;
    // X geometric with P(X = x) prop. to exp(-x / t): U uniform in [0, t),
    // kept with probability exp(-U/t); V geometric with parameter exp(-1).
    std::uint64_t u = uniform_below(g, t);
    if (!bernoulli_exp(g, u, t))
      return std::nullopt;
    std::uint64_t v = 0;
    while (bernoulli_exp(g, 1, 1))
      ++v;
    // Y = floor(X / s) is geometric with P(Y = y) prop. to exp(-y s / t).
    unsigned __int128 x = static_cast<unsigned __int128>(u) +
                          static_cast<unsigned __int128>(t) * v;
    auto y = static_cast<std::int64_t>(x / s);
    bool negative = bernoulli(g, 1, 2);
    if (negative && y == 0)
      return std::nullopt; // 0 would otherwise be counted twice
    return negative ? -y : y;
  }

  /// One pass of CKS Alg. 2 that also rejects every value outside
  /// [-below, above] (below, above >= 0), giving up as soon as the value is
  /// known to fall outside: the law of an accepted value is Lap_Z
  /// conditioned on [-below, above], the same as attempt() followed by a
  /// range check, but a pass costs O(1) coins however small the rate.
  /// Why the law is unchanged: a pass that would end outside the range is
  /// followed by a fresh pass either way, so any coin that can only lead to
  /// such an end may be skipped. X = U + t V only grows with V, so the V
  /// loop stops once floor(X / s) > max(below, above); and U >= s (M + 1)
  /// always ends outside, so U is drawn uniform below min(t, s (M + 1))
  /// directly (a uniform conditioned on a prefix of its range).
  template <class Engine>
  std::optional<std::int64_t> attempt_within(Engine& g, std::uint64_t below,
                                             std::uint64_t above) const {
    using u128 = unsigned __int128;
    const std::uint64_t s = rate_.num, t = rate_.den;
    const std::uint64_t reach = below > above ? below : above;
    // The smallest X with floor(X / s) > reach.
    const u128 limit = static_cast<u128>(s) * (static_cast<u128>(reach) + 1);
    const std::uint64_t k = limit < t ? static_cast<std::uint64_t>(limit) : t;
    std::uint64_t u = uniform_below(g, k);
    if (!bernoulli_exp(g, u, t))
      return std::nullopt;
    u128 x = u;
    while (bernoulli_exp(g, 1, 1)) {
      x += t;
      if (x >= limit)
        return std::nullopt;
    }
    auto y = static_cast<std::uint64_t>(x / s);
    bool negative = bernoulli(g, 1, 2);
    if (negative ? (y == 0 || y > below) : y > above)
      return std::nullopt;
    return negative ? -static_cast<std::int64_t>(y)
                    : static_cast<std::int64_t>(y);
  }

  rational rate() const { return rate_; }
  /// q = exp(-rate).
  double q() const;
  /// The closed form P(Z = z).
  double pmf(std::int64_t z) const;
  /// Var Z = 2q / (1 - q)^2 (the mean is 0).
  double variance() const;
  /// x + Z is rate-dLDP on the integers (OpBoost Theorem 4.9).
  privacy_cost cost() const;

private:
  rational rate_;
};

/// Bounded discrete Laplace by resampling (the paper's method): repeat
/// o = centre + Lap_Z(1/rate) until lo <= o <= hi. The law is
/// P(o) = q^|o - c| / sum_{o' in [lo, hi]} q^|o' - c| (Lemma 4.10 as fixed in
/// spec §4.4), which for rate = epsilon/2 is exactly the exponential
/// mechanism of exponential.hpp. The expected number of draws is
/// 1 / acceptance(centre); a draw that needs more than max_attempts throws
/// std::runtime_error, so configurations must keep min_acceptance() well
/// above 1 / max_attempts (the OpBoost mechanisms refuse those that do not).
class bounded_discrete_laplace {
public:
  /// The reference code's retry cap (spec §4.0 (d)).
  static constexpr std::uint64_t default_max_attempts = std::uint64_t{1} << 20;

  /// Throws std::invalid_argument unless lo <= hi, rate > 0.
  bounded_discrete_laplace(std::int64_t lo, std::int64_t hi, rational rate,
                           std::uint64_t max_attempts = default_max_attempts);

  /// One exact draw in [lo, hi]. A centre outside the range is moved to the
  /// nearer end first: q^|o - c| then changes by the same factor for every
  /// o in the range, so the law is the same and the expected number of draws
  /// stays 1 / acceptance(end) (the reference code does the same, spec
  /// §4.2).
  ///
  /// The rounds are discrete_laplace::attempt_within passes, which give up
  /// early on values that would fall outside (same law, O(1) coins per
  /// round instead of a whole Lap_Z draw). A pass accepts at least
  /// (1 - 1/e) / 2 > 1/4 as often as a whole draw lands in range (its U coin
  /// succeeds with probability >= 1 - 1/e and its sign coin is rejected at
  /// most half the time), so the cap is 4 max_attempts passes.
  template <class Engine>
  std::int64_t operator()(Engine& g, std::int64_t centre) const {
    centre = clamp(centre);
    const auto below = static_cast<std::uint64_t>(centre - lo_);
    const auto above = static_cast<std::uint64_t>(hi_ - centre);
    for (std::uint64_t i = 0; i < 4 * max_attempts_; ++i)
      if (auto z = lap_.attempt_within(g, below, above))
        return centre + *z;
    throw std::runtime_error(
        "bounded discrete Laplace: retry cap reached (the configuration's "
        "acceptance rate is too small)");
  }

  /// One resampling round as the paper describes it (a whole Lap_Z draw,
  /// then the range check): a value in range, or nothing. operator() uses
  /// the cheaper attempt_within rounds, which have the same law.
  template <class Engine>
  std::optional<std::int64_t> attempt(Engine& g, std::int64_t centre) const {
    std::int64_t o = centre + lap_(g);
    if (o < lo_ || o > hi_)
      return std::nullopt;
    return o;
  }

  /// Probability that one round lands in range, for a centre in range:
  /// (1 + q - q^(c-lo+1) - q^(hi-c+1)) / (1 + q) (spec §4.0 (c)).
  double acceptance(std::int64_t centre) const;
  /// The smallest acceptance over centres (at an end): (1 - q^n) / (1 + q).
  double min_acceptance() const;
  /// Bounded: (2 rate)-dLDP on [lo, hi] (OpBoost Theorem 4.11), so
  /// rate = epsilon / 2 gives epsilon-dLDP.
  privacy_cost cost() const;
  std::uint64_t max_attempts() const { return max_attempts_; }
  std::int64_t lo() const { return lo_; }
  std::int64_t hi() const { return hi_; }
  const discrete_laplace& unbounded() const { return lap_; }

private:
  std::int64_t clamp(std::int64_t c) const {
    return c < lo_ ? lo_ : (c > hi_ ? hi_ : c);
  }

  std::int64_t lo_;
  std::int64_t hi_;
  discrete_laplace lap_;
  std::uint64_t max_attempts_;
};

/// The normalizer tau of Lemma 4.10 as the paper prints it (by case, with
/// 2 in the numerator where (1 + q) belongs), for the noise range [l, u]
/// and scale lambda: kept to show that its probabilities do not sum to 1
/// (1.462 for lambda = 1, l = -2, u = 2; spec §9.1).
double paper_lemma_4_10_total(double lambda, std::int64_t l, std::int64_t u);

} // namespace veil::protocols::dp
