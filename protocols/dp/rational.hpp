#pragma once

// Exact positive rationals for the integer-only samplers: a privacy
// parameter such as epsilon / 2 = 0.04 is held as 1/25, and every
// probability the samplers realize is a function of these integers only
// (spec opboost §8.3).

#include <cstdint>
#include <string>

namespace veil::protocols::dp {

/// A non-negative rational num / den, reduced, den > 0. Numerator and
/// denominator stay below 2^32 (max_part), so that products of a part with a
/// domain distance (< 2^31) or a loop counter fit in 64 bits.
struct rational {
  std::uint64_t num = 0;
  std::uint64_t den = 1;

  /// Largest numerator or denominator a rational may have.
  static constexpr std::uint64_t max_part = (std::uint64_t{1} << 32) - 1;

  double value() const {
    return static_cast<double>(num) / static_cast<double>(den);
  }
  long double value_ld() const {
    return static_cast<long double>(num) / static_cast<long double>(den);
  }
  bool is_zero() const { return num == 0; }

  /// num / den reduced. When a part exceeds max_part, the result is the
  /// closest rational with parts <= max_part that is AT MOST num / den
  /// (rounded towards zero: a smaller epsilon never weakens privacy).
  static rational make(unsigned __int128 num, unsigned __int128 den);

  /// The simplest rational within a relative 1e-12 of x (so 0.08 gives
  /// 2/25, as typed), or, when none has parts <= max_part, the closest one
  /// below x. Throws std::invalid_argument for x < 0 or not finite.
  static rational from_double(double x);

  friend bool operator==(const rational&, const rational&) = default;
};

rational operator*(const rational& a, const rational& b);
rational operator/(const rational& a, const rational& b);
rational operator+(const rational& a, const rational& b);
/// a * k for an integer k >= 0.
rational operator*(const rational& a, std::uint64_t k);
/// a < b, exactly.
bool operator<(const rational& a, const rational& b);
inline bool operator<=(const rational& a, const rational& b) {
  return !(b < a);
}

/// "num/den", or "num" when den == 1.
std::string to_string(const rational& r);

} // namespace veil::protocols::dp
