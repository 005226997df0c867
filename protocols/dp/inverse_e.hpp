#pragma once

// The binary digits of exp(-1) = 1/e, for an exact Bernoulli(exp(-1)) coin
// that compares a uniform U with them (bit_coins.hpp): a byte of U decides
// the coin with probability 1 - 2^-8, where CKS's loop of Bernoulli(1/k)
// coins (bernoulli.hpp) tosses e of them on average. The digits come from
// the alternating series sum (-1)^k / k! in integer arithmetic, with an
// error bound, so no digit is taken on trust; the first 128 are computed at
// compile time, and a U that matches all of them (once in 2^128) is
// compared with as many more as it takes.

#include <array>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace veil::protocols::dp {

/// x = 2^(64 n) / e to within 2 (|x - 2^(64 n) / e| < 2), n = x.size() >= 1
/// words, most significant first. The series runs in n + 1 words: each
/// term is the one before divided by k, rounded down (an error below 2
/// units of the last word per term, the rounding of the ones before
/// shrinking by k), and it stops at the first term that rounds to 0 (the
/// tail of an alternating series is smaller than that term): fewer than
/// 2^32 units in all, under one unit of x's last word.
constexpr void inverse_e_fixed(std::span<std::uint64_t> x) {
  using u128 = unsigned __int128;
  const std::size_t n = x.size() + 1;
  std::vector<std::uint64_t> term(n, 0), sum(n, 0);
  term[0] = sum[0] = std::uint64_t{1} << 63; // 1/0! - 1/1! + 1/2! = 1/2
  for (std::uint64_t k = 3;; ++k) {
    u128 rest = 0;
    bool zero = true;
    for (auto& w : term) {
      const u128 cur = (rest << 64) | w;
      w = static_cast<std::uint64_t>(cur / k);
      rest = cur % k;
      zero = zero && w == 0;
    }
    if (zero)
      break;
    // Odd k subtracts. Every partial sum lies in (0, 1), so the sum taken
    // mod 2^(64 n) is the sum itself.
    std::uint64_t carry = 0;
    for (std::size_t i = n; i-- > 0;) {
      if (k % 2 == 1) {
        const u128 d = static_cast<u128>(sum[i]) - term[i] - carry;
        sum[i] = static_cast<std::uint64_t>(d);
        carry = static_cast<std::uint64_t>(d >> 64) & 1; // borrow
      } else {
        const u128 s = static_cast<u128>(sum[i]) + term[i] + carry;
        sum[i] = static_cast<std::uint64_t>(s);
        carry = static_cast<std::uint64_t>(s >> 64);
      }
    }
  }
  for (std::size_t i = 0; i < x.size(); ++i)
    x[i] = sum[i];
}

/// floor(2^128 / e), the first 128 binary digits of 1/e after the point, as
/// 16 bytes, most significant first.
inline constexpr std::array<std::uint8_t, 16> inverse_e_digits = [] {
  std::array<std::uint64_t, 3> x{};
  inverse_e_fixed(x);
  // x is within 2 of 2^192 / e: its top two words are floor(2^128 / e)
  // unless its last word lies within 2 of a carry (it does not).
  if (x[2] < 2 || x[2] > ~std::uint64_t{0} - 2)
    throw std::logic_error("inverse_e_digits: too close to call");
  std::array<std::uint8_t, 16> d{};
  for (int i = 0; i < 16; ++i)
    d[i] = static_cast<std::uint8_t>(x[i / 8] >> (56 - 8 * (i % 8)));
  return d;
}();

/// Whether U < 1/e for a uniform U whose first 128 bits are
/// inverse_e_digits, given U's next 64-bit words from next_word(): U's
/// words so far (u, as an integer) against x = 2^(64 n) / e to within 2
/// (inverse_e_fixed) with n = 4, 8, 16, ... words, until u + 1 <= x - 2
/// (U < 1/e for sure) or u >= x + 2 (U > 1/e). 1/e is irrational, so this
/// ends with probability 1, each doubling deciding all but a 2^-(64 n - 3)
/// share of the U that reach it.
template <class NextWord>
bool inverse_e_tail_below(NextWord next_word) {
  std::vector<std::uint64_t> u(2, 0), x;
  for (int i = 0; i < 16; ++i)
    u[i / 8] |= std::uint64_t{inverse_e_digits[i]} << (56 - 8 * (i % 8));
  for (std::size_t n = 4;; n *= 2) {
    while (u.size() < n)
      u.push_back(next_word());
    x.assign(n, 0);
    inverse_e_fixed(x);
    // d = x - u, a signed multiword difference: decided when d >= 3 or
    // d <= -2.
    std::vector<std::uint64_t> d(n);
    std::uint64_t borrow = 0;
    for (std::size_t i = n; i-- > 0;) {
      const auto v = static_cast<unsigned __int128>(x[i]) - u[i] - borrow;
      d[i] = static_cast<std::uint64_t>(v);
      borrow = static_cast<std::uint64_t>(v >> 64) & 1;
    }
    bool negative = borrow != 0;
    bool high_zero = true, high_ones = true; // all words above the last
    for (std::size_t i = 0; i + 1 < n; ++i) {
      high_zero = high_zero && d[i] == 0;
      high_ones = high_ones && d[i] == ~std::uint64_t{0};
    }
    if (!negative && (!high_zero || d[n - 1] >= 3))
      return true;
    if (negative && (!high_ones || d[n - 1] <= ~std::uint64_t{0} - 1))
      return false; // d <= -2: as a two's complement word, at most 2^64 - 2
  }
}

} // namespace veil::protocols::dp
