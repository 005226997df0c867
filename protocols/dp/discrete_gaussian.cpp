#include "protocols/dp/discrete_gaussian.hpp"

#include <algorithm>
#include <cmath>

namespace veil::protocols::dp {

namespace {

/// Up to this max_abs the normalizer is summed term by term.
constexpr std::uint64_t direct_sum_limit = 1000000;

/// Z = sum over |y| <= max_abs of exp(-y^2 / (2 s^2)), in long double.
long double normalizer(std::uint64_t t, std::uint64_t m,
                       std::uint64_t max_abs) {
  const long double var = static_cast<long double>(t) * m;
  const long double s = std::sqrt(var);
  auto f = [&](long double y) { return std::exp(-y * y / (2 * var)); };
  if (max_abs <= direct_sum_limit) {
    // Smallest terms first. Terms beyond 40 s are below e^-800 and change
    // nothing in long double (Z >= 1), so they are left out.
    auto top = std::min<long double>(static_cast<long double>(max_abs),
                                     std::ceil(40 * s));
    long double sum = 0;
    for (auto y = static_cast<std::uint64_t>(top); y >= 1; --y)
      sum += f(static_cast<long double>(y));
    return 1 + 2 * sum;
  }
  // Poisson summation (Jacobi theta): the sum over all integers is
  // s sqrt(2 pi) (1 + 2 sum_{k >= 1} exp(-2 pi^2 k^2 s^2)). s >= 1, so the
  // terms beyond k = 3 are below e^-316.
  const long double pi = 3.141592653589793238462643383279502884L;
  long double theta = 1;
  for (int k = 1; k <= 3; ++k)
    theta += 2 * std::exp(-2 * pi * pi * k * k * var);
  long double all = s * std::sqrt(2 * pi) * theta;
  // Minus the two tails beyond max_abs, each by Euler–Maclaurin from
  // a = max_abs + 1: the integral from a, f(a) / 2 and -f'(a) / 12. They
  // matter only when max_abs < 39 s (else both are below e^-760), so then
  // s > 25000 and the next term, |f'''(a)| / 720 < (39 / s)^3 f(a) / 720,
  // is below 6e-12 while Z > 4e4.
  const long double a = static_cast<long double>(max_abs) + 1;
  long double tail =
      s * std::sqrt(pi / 2) * std::erfc(a / (s * std::sqrt(2.0L))) + f(a) / 2 +
      a * f(a) / (12 * var);
  return all - 2 * tail;
}

} // namespace

discrete_gaussian::discrete_gaussian(std::uint64_t t, std::uint64_t m,
                                     std::uint64_t max_abs)
    : t_(t), m_(m), max_abs_(max_abs) {
  if (t == 0 || m == 0)
    throw std::invalid_argument("discrete Gaussian: t and m must be >= 1");
  if (t > max_part || m > max_part)
    throw std::invalid_argument("discrete Gaussian: t and m must be <= 2^57");
  if (max_abs > max_reach)
    throw std::invalid_argument("discrete Gaussian: max_abs must be <= 2^62");
  u_range_ = std::min(t, max_abs + 1);
  two_tm_ = 2 * static_cast<uint128>(t) * m;
  norm_ = normalizer(t, m, max_abs);
}

discrete_gaussian discrete_gaussian::at_least(double stddev, double tails) {
  if (!std::isfinite(stddev) || stddev <= 0)
    throw std::invalid_argument(
        "discrete Gaussian: the standard deviation must be finite and > 0");
  if (!std::isfinite(tails) || tails <= 0)
    throw std::invalid_argument(
        "discrete Gaussian: the truncation must be finite and > 0");
  if (stddev > static_cast<double>(max_part))
    throw std::invalid_argument(
        "discrete Gaussian: the standard deviation must be <= 2^57");
  const auto t = static_cast<std::uint64_t>(std::ceil(stddev)); // >= 1
  // ceil(stddev^2), exactly: stddev = mant 2^e with an integer mant < 2^53,
  // so stddev^2 = mant^2 2^(2e) with mant^2 < 2^106.
  int e = 0;
  const double frac = std::frexp(stddev, &e);
  const auto mant = static_cast<std::uint64_t>(std::ldexp(frac, 53));
  e -= 53;
  const uint128 square = static_cast<uint128>(mant) * mant;
  uint128 need;
  if (e >= 0) {
    need = square << (2 * e); // stddev <= 2^57: 2 e <= 8
  } else if (-2 * e >= 128) {
    need = 1;
  } else {
    const int shift = -2 * e;
    need = square >> shift;
    if ((need << shift) != square)
      ++need;
  }
  // t m >= need >= stddev^2; a product of integers is >= stddev^2 exactly
  // when it is >= ceil(stddev^2).
  const uint128 m = (need + t - 1) / t;
  if (m > max_part)
    throw std::invalid_argument(
        "discrete Gaussian: the standard deviation is too large");
  const long double reach = std::ceil(
      static_cast<long double>(tails) *
      std::sqrt(static_cast<long double>(t) *
                static_cast<long double>(static_cast<std::uint64_t>(m))));
  if (reach > static_cast<long double>(max_reach))
    throw std::invalid_argument(
        "discrete Gaussian: tails * stddev must be <= 2^62");
  return discrete_gaussian(t, static_cast<std::uint64_t>(m),
                           static_cast<std::uint64_t>(reach));
}

long double discrete_gaussian::stddev() const {
  return std::sqrt(variance());
}

double discrete_gaussian::pmf(std::int64_t y) const {
  const std::uint64_t a =
      y < 0 ? 0 - static_cast<std::uint64_t>(y) : static_cast<std::uint64_t>(y);
  if (a > max_abs_)
    return 0;
  const auto ya = static_cast<long double>(a);
  return static_cast<double>(std::exp(-ya * ya / (2 * variance())) / norm_);
}

double discrete_gaussian::acceptance() const {
  const long double one_minus_inv_e = -std::expm1(-1.0L);
  const long double half_m_over_t =
      static_cast<long double>(m_) / (2 * static_cast<long double>(t_));
  return static_cast<double>(one_minus_inv_e * std::exp(-half_m_over_t) *
                             norm_ / (2 * static_cast<long double>(u_range_)));
}

} // namespace veil::protocols::dp
