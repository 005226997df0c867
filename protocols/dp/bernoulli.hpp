#pragma once

// Exact, integer-only random primitives: uniform integers without modulo
// bias, Bernoulli(n/d) and Bernoulli(exp(-n/d)) (Canonne, Kamath & Steinke,
// "The Discrete Gaussian for Differential Privacy", NeurIPS 2020, Alg. 1;
// spec opboost §8.3). No floating point touches a probability.
//
// An engine is a std-style uniform random bit generator over the full
// 64-bit range (crypto::system_random in production, crypto::seeded_random
// in tests). An engine may also provide `uniform_below(n)`, `bernoulli(n,
// d)` or `bernoulli_exp(n, d)` members: then those are used instead. Tests
// use this to enumerate a sampler's random choices exactly.

#include <concepts>
#include <cstdint>
#include <limits>
#include <stdexcept>

namespace veil::protocols::dp {

using uint128 = unsigned __int128;

/// A 64-bit uniform random bit generator.
template <class Engine>
concept full_range_engine = requires(Engine& g) {
  { g() } -> std::convertible_to<std::uint64_t>;
}
&&Engine::min() == 0 && Engine::max() ==
                            std::numeric_limits<std::uint64_t>::max();

/// Uniform on {0, ..., n - 1}, n >= 1, exactly (Lemire's multiply-shift
/// with rejection of the biased low region).
template <class Engine>
std::uint64_t uniform_below(Engine& g, std::uint64_t n) {
  if constexpr (requires { g.uniform_below(n); }) {
    return g.uniform_below(n);
  } else {
    static_assert(full_range_engine<Engine>,
                  "the engine must produce uniform 64-bit words");
    using u128 = unsigned __int128;
    std::uint64_t x = g();
    u128 m = static_cast<u128>(x) * n;
    auto low = static_cast<std::uint64_t>(m);
    if (low < n) {
      std::uint64_t threshold = (0 - n) % n; // 2^64 mod n
      while (low < threshold) {
        x = g();
        m = static_cast<u128>(x) * n;
        low = static_cast<std::uint64_t>(m);
      }
    }
    return static_cast<std::uint64_t>(m >> 64);
  }
}

/// 1 with probability num / den (num <= den, den >= 1), exactly.
template <class Engine>
bool bernoulli(Engine& g, std::uint64_t num, std::uint64_t den) {
  if constexpr (requires { g.bernoulli(num, den); }) {
    return g.bernoulli(num, den);
  } else {
    if (num >= den)
      return true;
    if (num == 0)
      return false;
    return uniform_below(g, den) < num;
  }
}

template <class Engine>
bool bernoulli_exp(Engine& g, std::uint64_t num, std::uint64_t den);

/// bernoulli_exp's algorithm itself, whatever members the engine has (an
/// engine's own bernoulli_exp member may call it): CKS Alg. 1, its coins
/// from bernoulli() and its exp(-1) coins from bernoulli_exp(g, 1, 1).
template <class Engine>
bool bernoulli_exp_by_coins(Engine& g, std::uint64_t num, std::uint64_t den) {
  if (den == 0)
    throw std::invalid_argument("bernoulli_exp: zero denominator");
  if (num <= den) {
    // gamma in [0, 1]: K is the first k with Bernoulli(gamma / k) = 0;
    // P(K odd) = exp(-gamma).
    std::uint64_t k = 1;
    while (bernoulli(g, num, den * k))
      ++k;
    return k % 2 == 1;
  }
  for (std::uint64_t i = num / den; i > 0; --i)
    if (!bernoulli_exp(g, 1, 1))
      return false;
  return bernoulli_exp_by_coins(g, num % den, den);
}

/// 1 with probability exp(-num / den), exactly (CKS Alg. 1). num / den may
/// be any non-negative rational; the expected number of uniform draws is
/// O(1 + num / den). Requires den * (num / den + 2) < 2^64 for the loop
/// denominators; callers keep num and den below 2^32.
template <class Engine>
bool bernoulli_exp(Engine& g, std::uint64_t num, std::uint64_t den) {
  if constexpr (requires { g.bernoulli_exp(num, den); })
    return g.bernoulli_exp(num, den);
  else
    return bernoulli_exp_by_coins(g, num, den);
}

} // namespace veil::protocols::dp
