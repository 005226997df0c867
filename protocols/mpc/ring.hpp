#pragma once

// The ring Z_{2^64} of Privet's additive shares and its fixed point (spec
// privet §4.1): unsigned words, so that every sum and product wraps as the
// ring does (signed overflow would be undefined); a word is read as a
// signed value only to interpret it. Fixed-point values carry f = 20
// fractional bits (scale SF); indicators, comparison bits and indices are
// integers (scale S1). A product SF × SF has scale 2^2f and is truncated
// (arithmetic.hpp); a product with an S1 operand is not.

#include <cmath>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

namespace veil::protocols::mpc {

using word = std::uint64_t;
using words = std::vector<word>;

/// Fractional bits of the fixed point (the paper's f).
inline constexpr int fraction_bits = 20;

/// The word read as a two's complement value (modular in C++20).
inline std::int64_t to_signed(word w) {
  return static_cast<std::int64_t>(w);
}

/// llround(x 2^f) as a ring element; throws std::invalid_argument when x
/// is not finite or |x| 2^f ≥ 2^62 (|x| ≥ 2^42 at f = 20), kept clear of
/// the signed range's ends.
inline word encode(double x, int f = fraction_bits) {
  double scaled = std::ldexp(x, f);
  if (!std::isfinite(scaled) || std::abs(scaled) >= 0x1p62)
    throw std::invalid_argument("mpc::encode: value out of the ring's range");
  return static_cast<word>(static_cast<std::int64_t>(std::llround(scaled)));
}

inline double decode(word w, int f = fraction_bits) {
  return std::ldexp(static_cast<double>(to_signed(w)), -f);
}

words encode_all(std::span<const double> xs, int f = fraction_bits);
std::vector<double> decode_all(std::span<const word> ws, int f = fraction_bits);

/// a + b, a − b, element by element (the ring's, wrapping).
words add(std::span<const word> a, std::span<const word> b);
words sub(std::span<const word> a, std::span<const word> b);

} // namespace veil::protocols::mpc
