#pragma once

#include <cmath>
#include <cstdint>
#include <optional>

namespace veil::protocols::crypto {

/// Signed fixed point in Z_{2^64} with `frac_bits` fractional bits (spec
/// feverless §4.4): enc(x) = llround(x * 2^F) as two's complement, and a
/// centered lift on decoding, so sums of encodings decode to the sum as long
/// as |sum| < 2^(63-F).
class fixed_point {
public:
  /// 0 <= frac_bits <= 62.
  explicit constexpr fixed_point(int frac_bits = 32)
      : frac_bits_(frac_bits),
        scale_(static_cast<double>(std::uint64_t{1} << frac_bits)),
        unscale_(1 / scale_),
        bound_(static_cast<double>(std::uint64_t{1} << (63 - frac_bits))) {}

  int frac_bits() const { return frac_bits_; }
  /// The largest magnitude a value or a sum may reach: 2^(63-F).
  double bound() const { return bound_; }
  /// Encodes x; empty when |x| is at or beyond bound() or not finite.
  std::optional<std::uint64_t> encode(double x) const {
    if (!std::isfinite(x) || std::fabs(x) >= bound())
      return std::nullopt;
    // Times a power of two: exact, as ldexp, for every value that passes
    // the bound (and far cheaper: decoding is per query and client).
    return static_cast<std::uint64_t>(std::llround(x * scale_));
  }
  double decode(std::uint64_t v) const {
    // |v| >= 1 or 0, so the product is 0 or at least 2^-62: never
    // subnormal, and exact like ldexp.
    return static_cast<double>(static_cast<std::int64_t>(v)) * unscale_;
  }
  /// Whether `count` values of magnitude at most `max_abs`, plus `extra`,
  /// can be summed without wrapping: the overflow check done once at
  /// configuration time.
  bool fits(double count, double max_abs, double extra = 0) const {
    return count * max_abs + extra < bound();
  }

private:
  int frac_bits_;
  double scale_;   // 2^F
  double unscale_; // 2^-F
  double bound_;   // 2^(63-F), kept: encode() asks for it per value
};

} // namespace veil::protocols::crypto
