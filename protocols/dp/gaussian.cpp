#include "protocols/dp/gaussian.hpp"

#include <stdexcept>

namespace veil::protocols::dp {

namespace {

void check(double epsilon, double delta) {
  if (!(epsilon > 0) || !std::isfinite(epsilon))
    throw std::invalid_argument("epsilon must be a positive number");
  if (!(delta > 0 && delta < 1))
    throw std::invalid_argument("delta must lie in (0, 1)");
}

} // namespace

double classical_sigma(double epsilon, double delta) {
  check(epsilon, delta);
  return std::sqrt(2.0 * std::log(1.25 / delta)) / epsilon;
}

double analytic_delta(double sigma, double epsilon) {
  double a = 1.0 / (2.0 * sigma);
  double b = epsilon * sigma;
  // e^eps * Phi(-a - b) computed in log space: Phi underflows long before
  // e^eps overflows for the epsilons papers use.
  double tail = normal_cdf(-a - b);
  double second = tail == 0 ? 0 : std::exp(epsilon + std::log(tail));
  return normal_cdf(a - b) - second;
}

double analytic_sigma(double epsilon, double delta) {
  check(epsilon, delta);
  // delta(eps) decreases in sigma: bisect between a sigma that is too
  // small and one that is large enough.
  double lo = 1e-6, hi = 1.0;
  while (analytic_delta(hi, epsilon) > delta)
    hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * hi; ++i) {
    double mid = 0.5 * (lo + hi);
    (analytic_delta(mid, epsilon) > delta ? lo : hi) = mid;
  }
  return hi;
}

ziggurat_table::ziggurat_table() {
  double f = std::exp(-0.5 * r * r);
  x[0] = v / f;
  x[1] = r;
  x[layers] = 0;
  for (int i = 2; i < layers; ++i) {
    x[i] = std::sqrt(-2 * std::log(v / x[i - 1] + f));
    f = std::exp(-0.5 * x[i] * x[i]);
  }
  for (int i = 0; i < layers; ++i)
    ratio[i] = x[i + 1] / x[i];
}

const ziggurat_table& ziggurat() {
  static const ziggurat_table table;
  return table;
}

} // namespace veil::protocols::dp
