#include "protocols/dp/rational.hpp"

#include <cmath>
#include <stdexcept>

namespace veil::protocols::dp {

namespace {

using u128 = unsigned __int128;

u128 gcd(u128 a, u128 b) {
  while (b != 0) {
    u128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

/// The last convergent of num/den's continued fraction whose parts fit in
/// max_part and that is <= num/den (an even-index convergent), improved by
/// the best semiconvergent below the value.
rational round_down(u128 num, u128 den) {
  const u128 limit = rational::max_part;
  if (num / den > limit)
    throw std::invalid_argument("rational: value too large");
  // Convergents h/k; h_{-1} = 1, k_{-1} = 0; h_{-2} = 0, k_{-2} = 1.
  u128 h2 = 0, k2 = 1, h1 = 1, k1 = 0;
  u128 best_h = num / den, best_k = 1; // floor: always below
  u128 a_num = num, a_den = den;
  for (int i = 0; a_den != 0; ++i) {
    u128 a = a_num / a_den;
    u128 rem = a_num % a_den;
    // Largest t <= a keeping the semiconvergent inside the limits.
    u128 t = a;
    if (k1 != 0 && (limit - k2) / k1 < t)
      t = (limit - k2) / k1;
    if (h1 != 0 && (limit - h2) / h1 < t)
      t = (limit - h2) / h1;
    u128 h = h2 + t * h1, k = k2 + t * k1;
    // Even index: the (semi)convergent lies at or below the value.
    if (i % 2 == 0 && t >= 1 && k != 0) {
      // Keep it if closer than the best so far (both are below).
      if (h * best_k > best_h * k) {
        best_h = h;
        best_k = k;
      }
    }
    if (t < a)
      break; // the next convergent would exceed the limits
    h2 = h1;
    k2 = k1;
    h1 = h;
    k1 = k;
    a_num = a_den;
    a_den = rem;
    if (rem == 0 && i % 2 == 0) {
      best_h = h;
      best_k = k;
    }
  }
  rational r;
  r.num = static_cast<std::uint64_t>(best_h);
  r.den = static_cast<std::uint64_t>(best_k);
  return r;
}

} // namespace

rational rational::make(u128 num, u128 den) {
  if (den == 0)
    throw std::invalid_argument("rational: zero denominator");
  if (num == 0)
    return rational{0, 1};
  u128 g = gcd(num, den);
  num /= g;
  den /= g;
  if (num <= max_part && den <= max_part) {
    rational r;
    r.num = static_cast<std::uint64_t>(num);
    r.den = static_cast<std::uint64_t>(den);
    return r;
  }
  return round_down(num, den);
}

rational rational::from_double(double x) {
  if (!std::isfinite(x) || x < 0)
    throw std::invalid_argument("rational: expected a finite number >= 0");
  if (x == 0)
    return rational{0, 1};
  if (x < 0x1.0p-40 || x > static_cast<double>(max_part))
    throw std::invalid_argument("rational: value out of range");
  int e = 0;
  double m = std::frexp(x, &e); // x = m 2^e, m in [0.5, 1)
  u128 num = static_cast<u128>(std::ldexp(m, 53));
  int shift = 53 - e; // x = num / 2^shift, shift in [..., 93]
  u128 den = 1;
  if (shift >= 0)
    den <<= shift;
  else
    num <<= -shift;
  u128 g = gcd(num, den);
  num /= g;
  den /= g;
  // Convergents of num/den, the first within 1e-12 relative is the value the
  // user meant.
  u128 h2 = 0, k2 = 1, h1 = 1, k1 = 0;
  u128 a_num = num, a_den = den;
  while (a_den != 0) {
    u128 a = a_num / a_den;
    u128 rem = a_num % a_den;
    u128 h = h2 + a * h1, k = k2 + a * k1;
    if (h > max_part || k > max_part)
      break;
    long double approx = static_cast<long double>(h) / k;
    if (std::fabs(approx - static_cast<long double>(x)) <=
        1e-12L * static_cast<long double>(x))
      return make(h, k);
    h2 = h1;
    k2 = k1;
    h1 = h;
    k1 = k;
    a_num = a_den;
    a_den = rem;
  }
  return make(num, den);
}

rational operator*(const rational& a, const rational& b) {
  return rational::make(static_cast<u128>(a.num) * b.num,
                        static_cast<u128>(a.den) * b.den);
}

rational operator/(const rational& a, const rational& b) {
  if (b.num == 0)
    throw std::invalid_argument("rational: division by zero");
  return rational::make(static_cast<u128>(a.num) * b.den,
                        static_cast<u128>(a.den) * b.num);
}

rational operator+(const rational& a, const rational& b) {
  return rational::make(static_cast<u128>(a.num) * b.den +
                            static_cast<u128>(b.num) * a.den,
                        static_cast<u128>(a.den) * b.den);
}

rational operator*(const rational& a, std::uint64_t k) {
  return rational::make(static_cast<u128>(a.num) * k, a.den);
}

bool operator<(const rational& a, const rational& b) {
  return static_cast<u128>(a.num) * b.den < static_cast<u128>(b.num) * a.den;
}

std::string to_string(const rational& r) {
  if (r.den == 1)
    return std::to_string(r.num);
  return std::to_string(r.num) + "/" + std::to_string(r.den);
}

} // namespace veil::protocols::dp
