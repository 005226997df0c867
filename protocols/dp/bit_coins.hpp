#pragma once

// Exact coins for a few random bits each. bernoulli.hpp's coins spend a
// 64-bit word each (a uniform integer below the denominator); the discrete
// Gaussian tosses about 13 of them per draw, so its words cost more than
// its arithmetic. Here a coin with probability p = num / den compares a
// uniform U in [0, 1), one bit at a time, with the binary expansion of p,
// digit by digit, and stops at the first bit where they differ: it returns
// U < p, which has probability p exactly, after 2 bits on average (Knuth &
// Yao, 1976). The digits come from integer arithmetic on the remainder
// (digit = [2r >= den], r = 2r mod den), so no rounding touches p.

#include <cstdint>
#include <limits>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/bernoulli.hpp"

namespace veil::protocols::dp {

/// An engine adaptor: words come from the engine it wraps, and `bernoulli`
/// and `bernoulli_u128` coins from a buffer of that engine's bits (the
/// members that bernoulli.hpp's and discrete_gaussian.hpp's functions use
/// when an engine has them). Members of the wrapped engine that decide
/// coins themselves (the tests' enumerating engines) are used instead.
/// Unused bits are wiped when it goes away.
template <class Engine>
class bit_coins : public crypto::word_engine {
public:
  explicit bit_coins(Engine& g) : g_(g) {}
  ~bit_coins() { *static_cast<volatile std::uint64_t*>(&bits_) = 0; }
  bit_coins(const bit_coins&) = delete;
  bit_coins& operator=(const bit_coins&) = delete;

  result_type operator()() { return g_(); }

  std::uint64_t uniform_below(std::uint64_t n) requires requires(Engine& e) {
    e.uniform_below(n);
  }
  { return g_.uniform_below(n); }

  /// 1 with probability num / den (num >= den: always 1).
  bool bernoulli(std::uint64_t num, std::uint64_t den) {
    if constexpr (requires { g_.bernoulli(num, den); })
      return g_.bernoulli(num, den);
    else
      return below(num, den);
  }

  /// The same for 128-bit parts (den >= 1).
  bool bernoulli_u128(uint128 num, uint128 den) {
    if constexpr (requires { g_.bernoulli_u128(num, den); })
      return g_.bernoulli_u128(num, den);
    else if (num < den && den <= std::numeric_limits<std::uint64_t>::max())
      return below(static_cast<std::uint64_t>(num),
                   static_cast<std::uint64_t>(den));
    else
      return below(num, den);
  }

  /// Bits taken from the engine so far (tests: which coins a prefix of
  /// bits decided).
  std::uint64_t bits_drawn() const { return 64 * words_ - left_; }

private:
  /// U < num / den for a uniform U, from U's bits, most significant first.
  template <class Word>
  bool below(Word num, Word den) {
    if (num >= den)
      return true;
    if (num == 0)
      return false;
    Word r = num; // p's expansion after the digits compared: r / den
    while (true) {
      // The next digit is 1 iff 2r >= den; den - r avoids 2r's overflow.
      const Word rest = den - r;
      const bool digit = r >= rest;
      r = digit ? r - rest : r + r;
      if (next_bit() != digit)
        return digit; // U's bit 0 where p's is 1: U < p
      if (r == 0)
        return false; // p's expansion ended: U >= p
    }
  }

  bool next_bit() {
    if (left_ == 0) {
      bits_ = g_();
      ++words_;
      left_ = 64;
    }
    bool b = (bits_ >> 63) != 0;
    bits_ <<= 1;
    --left_;
    return b;
  }

  Engine& g_;
  std::uint64_t bits_ = 0;
  std::uint64_t words_ = 0;
  unsigned left_ = 0;
};

} // namespace veil::protocols::dp
