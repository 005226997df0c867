#pragma once

// Exact coins for a few random bits each. bernoulli.hpp's coins spend a
// 64-bit word each (a uniform integer below the denominator); the discrete
// Gaussian tosses about 13 of them per draw, so its words cost more than
// its arithmetic. Here a coin with probability p = num / den compares a
// uniform U in [0, 1) with p, a chunk of `chunk_bits` bits of U at a time,
// most significant first, and stops at the first chunk that decides: with
// W the chunk, U < p for sure when (W + 1) / 2^k <= p, U >= p for sure
// when W / 2^k >= p, and otherwise the comparison goes on with the rest of
// U against 2^k p - W = (2^k num - W den) / den (Knuth & Yao, 1976, k
// digits at a time). Integer arithmetic only, so no rounding touches p, and
// U < p has probability p exactly. A chunk decides with probability
// 1 - 2^-k: one chunk per coin, and the one branch that depends on the
// coins is the outcome itself. (A bit at a time spent 2 bits a coin, but
// each bit was a branch the CPU mispredicted half the time: with chunks a
// discrete Gaussian draw takes 150 ns instead of 188, fastest of 12 runs
// on a 2.5 GHz Xeon, and 10 mispredicted branches instead of 14.)

#include <cstdint>
#include <limits>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/bernoulli.hpp"
#include "protocols/dp/inverse_e.hpp"

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
    else
      return below(num, den);
  }

  /// 1 with probability exp(-num / den) (den >= 1): bernoulli_exp's
  /// algorithm, whose Bernoulli(exp(-1)) coins come back here and compare
  /// U with 1/e's digits (below_inverse_e). Where the wrapped engine
  /// decides coins itself, its coins decide as before.
  bool bernoulli_exp(std::uint64_t num, std::uint64_t den) {
    if constexpr (requires { g_.bernoulli_exp(num, den); })
      return g_.bernoulli_exp(num, den);
    if constexpr (!requires { g_.bernoulli(num, den); })
      if (num == den && den != 0)
        return below_inverse_e();
    return bernoulli_exp_by_coins(*this, num, den);
  }

  /// Bits taken from the engine so far (tests: which coins a prefix of
  /// bits decided).
  std::uint64_t bits_drawn() const { return 64 * words_ - left_; }

private:
  /// Bits of U per step: a divisor of 64, so a chunk never straddles two
  /// words (and U's bits stay in order, which the tests rely on).
  static constexpr unsigned chunk_bits = 8;

  /// U < num / den for a uniform U, from U's bits, chunk by chunk.
  bool below(uint128 num, uint128 den) {
    if (num >= den)
      return true;
    if (num == 0)
      return false;
    // Room for 2^k num and W den + den in 128 bits (den < 2^116 in every
    // caller; a wider one goes a bit at a time).
    if (den >> (128 - chunk_bits) != 0)
      return below_wide(num, den);
    uint128 r = num; // p's expansion after the chunks compared: r / den
    while (true) {
      const uint128 w = next_chunk();
      const uint128 scaled = r << chunk_bits;
      const uint128 low = w * den; // W / 2^k against p = scaled / (2^k den)
      if (low >= scaled)
        return false; // U >= W / 2^k >= p
      if (low + den <= scaled)
        return true; // U < (W + 1) / 2^k <= p
      r = scaled - low;
    }
  }

  /// U < 1/e: U's chunks against 1/e's digits, the first that differs
  /// deciding (a chunk per coin but once in 2^8; CKS's loop of
  /// Bernoulli(1/k) coins takes e coins on average).
  bool below_inverse_e() {
    static_assert(chunk_bits == 8, "1/e's digits are bytes");
    for (const unsigned digit : inverse_e_digits)
      if (const unsigned w = next_chunk(); w != digit)
        return w < digit;
    return inverse_e_tail_below([this] {
      std::uint64_t word = 0;
      for (unsigned i = 0; i < 64 / chunk_bits; ++i)
        word = (word << chunk_bits) | next_chunk();
      return word;
    });
  }

  /// The same a bit at a time, for denominators too wide for a chunk's
  /// product.
  bool below_wide(uint128 num, uint128 den) {
    uint128 r = num;
    while (true) {
      // The next digit is 1 iff 2r >= den; den - r avoids 2r's overflow.
      const uint128 rest = den - r;
      const bool digit = r >= rest;
      r = digit ? r - rest : r + r;
      if (next_bits(1) != static_cast<unsigned>(digit))
        return digit; // U's bit 0 where p's is 1: U < p
      if (r == 0)
        return false; // p's expansion ended: U >= p
    }
  }

  unsigned next_chunk() { return next_bits(chunk_bits); }

  /// The next k bits of U (k divides 64 or the words' alignment to chunks
  /// is lost, which changes no law but the tests' prefixes).
  unsigned next_bits(unsigned k) {
    if (left_ < k) { // empty, or (after a wide coin's bits) too few left
      bits_ = g_();
      ++words_;
      left_ = 64;
    }
    auto b = static_cast<unsigned>(bits_ >> (64 - k));
    bits_ <<= k;
    left_ -= k;
    return b;
  }

  Engine& g_;
  std::uint64_t bits_ = 0;
  std::uint64_t words_ = 0;
  unsigned left_ = 0;
};

} // namespace veil::protocols::dp
