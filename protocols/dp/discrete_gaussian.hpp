#pragma once

// The discrete Gaussian N_Z(0, s^2): P(Y = y) prop. to exp(-y^2 / (2 s^2))
// on the integers, sampled exactly with integer arithmetic only (Canonne,
// Kamath & Steinke, "The Discrete Gaussian for Differential Privacy",
// NeurIPS 2020 (CKS), Alg. 3). Added to an integer query of sensitivity D,
// it gives (D^2 / (2 s^2))-zCDP, the continuous Gaussian's guarantee (CKS),
// without the floating-point pitfalls of Box–Muller noise (the low-order
// bits of a noisy double can reveal the value it was added to: Mironov,
// CCS 2012).
//
// FEVERLESS adds noise to fixed-point values with F = 32 fractional bits,
// so s is sensitivity * sigma * 2^F, some 2^33 to 2^40: the design keeps
// every number of a draw within 128 bits for s up to 2^56 (see
// discrete_gaussian). The 128-bit coins it
// needs come first, in bernoulli.hpp's style (an engine may provide
// `uniform_below_u128(n)`, `bernoulli_u128(n, d)` or
// `bernoulli_exp_u128(n, d)` members, used instead; tests enumerate with
// them).

#include <bit>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>

#include "protocols/dp/bernoulli.hpp"
#include "protocols/dp/bit_coins.hpp"

namespace veil::protocols::dp {

/// The high word of a uniform draw on {0, ..., last} (last >= 2^64): a word
/// masked to the bit length of last >> 64, drawn again while above it (at
/// most half the time).
template <class Engine>
std::uint64_t high_word_at_most(Engine& g, uint128 last) {
  static_assert(full_range_engine<Engine>,
                "the engine must produce uniform 64-bit words");
  const auto last_hi = static_cast<std::uint64_t>(last >> 64);
  if (last_hi == 0) // last = 2^64 - 1: the high word is always 0
    return 0;
  const std::uint64_t mask =
      std::numeric_limits<std::uint64_t>::max() >> std::countl_zero(last_hi);
  while (true)
    if (auto hi = static_cast<std::uint64_t>(g()) & mask; hi <= last_hi)
      return hi;
}

/// Uniform on {0, ..., n - 1} for 1 <= n < 2^128, exactly. n < 2^64 goes
/// to the 64-bit uniform_below; otherwise x = hi 2^64 + lo, hi from
/// high_word_at_most (so a try that hi alone rejects costs one word), x
/// rejected when x >= n. Throws std::invalid_argument for n = 0.
template <class Engine>
uint128 uniform_below_u128(Engine& g, uint128 n) {
  if (n == 0)
    throw std::invalid_argument("uniform_below_u128: empty range");
  if constexpr (requires { g.uniform_below_u128(n); }) {
    return g.uniform_below_u128(n);
  } else {
    if (n <= std::numeric_limits<std::uint64_t>::max())
      return uniform_below(g, static_cast<std::uint64_t>(n));
    const uint128 last = n - 1;
    while (true) {
      uint128 x = (static_cast<uint128>(high_word_at_most(g, last)) << 64) |
                  static_cast<std::uint64_t>(g());
      if (x <= last)
        return x;
    }
  }
}

/// 1 with probability num / den (num >= den: always 1) for 128-bit parts,
/// exactly: x < num for x = uniform_below_u128(g, den), except that the low
/// word is drawn only when the high word alone decides neither whether x
/// is in range nor whether x < num (it equals the high word of den - 1 or
/// of num): about one word per coin instead of two. Throws
/// std::invalid_argument for den = 0.
template <class Engine>
bool bernoulli_u128(Engine& g, uint128 num, uint128 den) {
  if (den == 0)
    throw std::invalid_argument("bernoulli_u128: zero denominator");
  if constexpr (requires { g.bernoulli_u128(num, den); }) {
    return g.bernoulli_u128(num, den);
  } else {
    if (num >= den)
      return true;
    if (num == 0)
      return false;
    if (den <= std::numeric_limits<std::uint64_t>::max())
      return bernoulli(g, static_cast<std::uint64_t>(num),
                       static_cast<std::uint64_t>(den));
    const uint128 last = den - 1;
    const auto last_hi = static_cast<std::uint64_t>(last >> 64);
    const auto num_hi = static_cast<std::uint64_t>(num >> 64);
    while (true) {
      auto hi = high_word_at_most(g, last);
      if (hi != last_hi && hi != num_hi)
        return hi < num_hi;
      uint128 x =
          (static_cast<uint128>(hi) << 64) | static_cast<std::uint64_t>(g());
      if (x <= last)
        return x < num;
    }
  }
}

/// 1 with probability exp(-num / den) for any 128-bit num and den >= 1,
/// exactly (CKS Alg. 1, like bernoulli_exp, whose loop denominators
/// den * K can overflow 64 bits). For gamma = num / den <= 1, K is the
/// first k with Bernoulli(gamma / k) = 0 and P(K odd) = exp(-gamma); the
/// coin Bernoulli(num / (den k)) is drawn directly while den * k fits in
/// 128 bits (always, in practice: den < 2^116 here) and otherwise as
/// Bernoulli(1/k) AND Bernoulli(num / den), two independent coins whose
/// probabilities multiply to exactly num / (den k). For gamma > 1,
/// exp(-gamma) = exp(-1)^floor(gamma) exp(-(num mod den) / den): floor(gamma)
/// coins Bernoulli(exp(-1)) (stopping at the first 0, so a huge gamma costs
/// O(1) coins on average) and one more. Throws std::invalid_argument for
/// den = 0.
template <class Engine>
bool bernoulli_exp_u128(Engine& g, uint128 num, uint128 den) {
  if (den == 0)
    throw std::invalid_argument("bernoulli_exp_u128: zero denominator");
  if constexpr (requires { g.bernoulli_exp_u128(num, den); }) {
    return g.bernoulli_exp_u128(num, den);
  } else {
    if (num <= den) {
      for (std::uint64_t k = 1;; ++k) {
        uint128 den_k;
        bool coin = __builtin_mul_overflow(den, k, &den_k)
                        ? bernoulli(g, 1, k) && bernoulli_u128(g, num, den)
                        : bernoulli_u128(g, num, den_k);
        if (!coin)
          return k % 2 == 1;
      }
    }
    for (uint128 i = num / den; i > 0; --i)
      if (!bernoulli_exp(g, 1, 1))
        return false;
    return bernoulli_exp_u128(g, num % den, den);
  }
}

/// N_Z(0, s^2) conditioned on |Y| <= max_abs, with s^2 = t m for integers
/// t, m >= 1. Shaped like a std distribution: operator()(engine) draws one
/// value.
///
/// CKS Alg. 3 proposes Y from the discrete Laplace law P(Y = y) prop. to
/// exp(-|y| / t) and accepts it with probability
/// exp(-(|Y| - s^2 / t)^2 / (2 s^2)): the product is prop. to
/// exp(-y^2 / (2 s^2)) for ANY integer t >= 1 (t near s only makes it
/// fast). With s^2 = t m, s^2 / t = m is an integer and the exponent is
/// (|Y| - m)^2 / (2 t m), a ratio of integers: for t, m <= 2^57 and
/// |Y| <= max_abs <= 2^62 both fit in 128 bits, and every coin of a draw
/// is exact.
///
/// Truncation: a pass whose proposal already exceeds max_abs gives up (see
/// attempt()), which is what keeps the numbers bounded. at_least() puts
/// max_abs at 40 standard deviations, where the conditioning changes any
/// probability by less than 1e-300 (P(|Y| > 40 s) ~ e^-800).
class discrete_gaussian {
public:
  /// Largest t and m.
  static constexpr std::uint64_t max_part = std::uint64_t{1} << 57;
  /// Largest max_abs.
  static constexpr std::uint64_t max_reach = std::uint64_t{1} << 62;
  /// at_least()'s truncation, in standard deviations.
  static constexpr double default_tails = 40;

  /// s^2 = t m, |Y| <= max_abs. Throws std::invalid_argument unless
  /// 1 <= t, m <= max_part and max_abs <= max_reach. Any such t is exact;
  /// the expected number of passes per draw is 1 / acceptance(), about
  /// 1.3 (t / s) exp(s^2 / (2 t^2)) untruncated: keep t near s.
  discrete_gaussian(std::uint64_t t, std::uint64_t m, std::uint64_t max_abs);

  /// The sampler with standard deviation at least `stddev` (never less:
  /// more noise never weakens privacy), truncated at `tails` standard
  /// deviations: t = ceil(stddev), m = ceil(ceil(stddev^2) / t) with
  /// stddev^2 rounded up exactly (so t m >= stddev^2 holds exactly, and
  /// t m < stddev^2 + stddev + 2), max_abs = ceil(tails sqrt(t m)). s^2 is
  /// an integer, so stddev < 1 becomes s = 1. Throws std::invalid_argument
  /// unless stddev and tails are finite and > 0 and the limits hold
  /// (stddev up to about 2^62 / tails).
  static discrete_gaussian at_least(double stddev,
                                    double tails = default_tails);

  /// One exact draw: the first accepted attempt(), its coins from
  /// bit_coins (about 3 words a draw instead of 13).
  template <class Engine>
  std::int64_t operator()(Engine& g) const {
    bit_coins<Engine> coins(g);
    while (true)
      if (auto y = attempt(coins))
        return *y;
  }

  /// One pass of CKS Alg. 3: a value, or nothing when the pass rejects. The
  /// law of an accepted value is the truncated discrete Gaussian (pmf()).
  ///
  /// The proposal is CKS Alg. 2 with rate 1/t: U uniform in [0, t) kept
  /// with probability exp(-U/t), V geometric (Bernoulli(exp(-1)) coins
  /// until a 0), X = U + t V, a random sign, (negative, 0) rejected. Like
  /// discrete_laplace::attempt_within, the pass gives up as soon as X
  /// exceeds max_abs: such a pass can only end outside the range, and a
  /// fresh pass follows it either way, so the law is unchanged. For the
  /// same reason U is drawn below min(t, max_abs + 1) directly (a uniform
  /// conditioned on a prefix of its range).
  template <class Engine>
  std::optional<std::int64_t> attempt(Engine& g) const {
    std::uint64_t x = uniform_below(g, u_range_);
    if (!bernoulli_exp_u128(g, x, t_))
      return std::nullopt;
    while (bernoulli_exp(g, 1, 1)) {
      x += t_; // x <= max_reach + max_part: no overflow
      if (x > max_abs_)
        return std::nullopt;
    }
    bool negative = bernoulli(g, 1, 2);
    if (negative && x == 0)
      return std::nullopt; // 0 would otherwise be counted twice
    // Accept with probability exp(-(|Y| - m)^2 / (2 t m)).
    std::uint64_t d = x > m_ ? x - m_ : m_ - x;
    if (!bernoulli_exp_u128(g, static_cast<uint128>(d) * d, two_tm_))
      return std::nullopt;
    return negative ? -static_cast<std::int64_t>(x)
                    : static_cast<std::int64_t>(x);
  }

  std::uint64_t t() const { return t_; }
  std::uint64_t m() const { return m_; }
  std::uint64_t max_abs() const { return max_abs_; }
  /// The parameter s^2 = t m. The law's variance is smaller by a relative
  /// ~8 pi^2 s^2 exp(-2 pi^2 s^2) (at most 2.2e-7, at s = 1; below 1e-30
  /// from s = 2) and by the truncation.
  long double variance() const { return static_cast<long double>(t_) * m_; }
  /// s = sqrt(t m).
  long double stddev() const;
  /// The exact truncated law: exp(-y^2 / (2 s^2)) / Z for |y| <= max_abs,
  /// 0 otherwise (Z is computed once, see discrete_gaussian.cpp).
  double pmf(std::int64_t y) const;
  /// The probability that one attempt() returns a value:
  /// (1 - 1/e) exp(-m / (2 t)) Z / (2 min(t, max_abs + 1)) (a pass yields
  /// y with probability (1 - 1/e) / (2 min(t, max_abs + 1))
  /// exp(-|y| / t) before the final coin).
  double acceptance() const;

private:
  std::uint64_t t_;
  std::uint64_t m_;
  std::uint64_t max_abs_;
  std::uint64_t u_range_;
  uint128 two_tm_;
  long double norm_; // Z = sum over |y| <= max_abs of exp(-y^2 / (2 t m))
};

} // namespace veil::protocols::dp
