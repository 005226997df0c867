#pragma once

#include <cmath>
#include <iterator>

#include "protocols/crypto/random.hpp"

namespace veil::protocols::dp {

/// Standard normal CDF.
inline double normal_cdf(double x) {
  return 0.5 * std::erfc(-x / std::sqrt(2.0));
}

/// The classical Gaussian mechanism's noise multiplier
/// sqrt(2 ln(1.25/delta)) / epsilon (Dwork & Roth, Thm. A.1). Its proof
/// needs epsilon < 1: for larger epsilon this sigma may NOT give
/// (epsilon, delta)-DP. Kept because papers (FEVERLESS) calibrate with it.
double classical_sigma(double epsilon, double delta);

/// The exact delta(epsilon) of Gaussian noise with standard deviation
/// `sigma` per unit of L2 sensitivity (Balle & Wang 2018, Thm. 8):
/// Phi(1/(2 sigma) - epsilon sigma) - e^epsilon Phi(-1/(2 sigma) - epsilon
/// sigma).
double analytic_delta(double sigma, double epsilon);

/// The smallest sigma (per unit of sensitivity) for which Gaussian noise is
/// (epsilon, delta)-DP, for any epsilon > 0: the analytic Gaussian
/// mechanism. Always at most classical_sigma where that one is valid.
double analytic_sigma(double epsilon, double delta);

/// zCDP of one Gaussian release: rho = 1 / (2 sigma^2) per unit sensitivity
/// (Bun & Steinke 2016). zCDP composes by adding rho.
inline double gaussian_rho(double sigma) {
  return 1.0 / (2.0 * sigma * sigma);
}

/// (epsilon, delta)-DP implied by rho-zCDP: rho + 2 sqrt(rho ln(1/delta)).
inline double zcdp_to_epsilon(double rho, double delta) {
  return rho + 2.0 * std::sqrt(rho * std::log(1.0 / delta));
}

/// Draws N(0, stddev^2) from `rng` (Box–Muller on 53-bit uniforms; the
/// engine must be a CSPRNG outside tests: see crypto::system_random).
template <class Engine>
double gaussian(Engine& rng, double stddev) {
  double u1 = crypto::uniform_open01(rng);
  double u2 = crypto::uniform_open01(rng);
  return stddev * std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

/// Fills `out` with independent standard normals from `rng` (Marsaglia's
/// polar method on 53-bit uniforms: both values of each accepted pair are
/// used, one log and one sqrt per pair). A floating-point sampler, like
/// gaussian(): not bit-exact DP (Mironov's attack); for the protocols whose
/// papers calibrate continuous Gaussians.
template <class Engine, class Out>
void fill_standard_normal(Engine& rng, Out&& out) {
  auto it = std::begin(out);
  auto end = std::end(out);
  while (it != end) {
    double x, y, s;
    do {
      x = 2 * crypto::uniform_open01(rng) - 1;
      y = 2 * crypto::uniform_open01(rng) - 1;
      s = x * x + y * y;
    } while (s >= 1 || s == 0);
    double f = std::sqrt(-2 * std::log(s) / s);
    *it++ = x * f;
    if (it != end)
      *it++ = y * f;
  }
}

} // namespace veil::protocols::dp
