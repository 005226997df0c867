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

/// The 128 layers of the Ziggurat for the standard normal (Marsaglia &
/// Tsang 2000, in Doornik's 2005 form): x[i] the layers' right edges
/// (x[0] = V / f(R) for the base strip, x[1] = R, x[128] = 0) and
/// ratio[i] = x[i+1] / x[i], below which a point is inside without a test.
struct ziggurat_table {
  static constexpr int layers = 128;
  static constexpr double r = 3.442619855899;      // the tail's start
  static constexpr double v = 9.91256303526217e-3; // each layer's area
  double x[layers + 1];
  double ratio[layers];
  ziggurat_table();
};

const ziggurat_table& ziggurat();

/// One standard normal from `rng` by the Ziggurat: one 64-bit word per
/// draw in 99% of draws (the top 53 bits a uniform in (-1, 1), the low 7
/// the layer: independent bits), an exp() in the wedges and two logs in
/// the tail. An exact rejection method up to floating point, like
/// gaussian() (not bit-exact DP: Mironov's attack), 3x as fast.
template <class Engine>
double standard_normal(Engine& rng) {
  const auto& z = ziggurat();
  while (true) {
    auto word = rng();
    auto layer = static_cast<int>(word & 0x7F);
    double u = static_cast<double>(word >> 11) * 0x1.0p-52 - 1.0; // [-1, 1)
    if (std::abs(u) < z.ratio[layer])
      return u * z.x[layer];
    if (layer == 0) { // the tail beyond r (Marsaglia's method)
      double a, b;
      do {
        a = std::log(crypto::uniform_open01(rng)) / ziggurat_table::r;
        b = std::log(crypto::uniform_open01(rng));
      } while (-2 * b < a * a);
      return u < 0 ? a - ziggurat_table::r : ziggurat_table::r - a;
    }
    // A wedge: accept under the density between the layer's edges.
    double x = u * z.x[layer];
    double f0 = std::exp(-0.5 * (z.x[layer] * z.x[layer] - x * x));
    double f1 = std::exp(-0.5 * (z.x[layer + 1] * z.x[layer + 1] - x * x));
    if (f1 + crypto::uniform_open01(rng) * (f0 - f1) < 1.0)
      return x;
  }
}

/// Fills `out` with independent standard normals (standard_normal).
template <class Engine, class Out>
void fill_standard_normal(Engine& rng, Out&& out) {
  for (auto& x : out)
    x = standard_normal(rng);
}

} // namespace veil::protocols::dp
