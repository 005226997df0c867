#include "protocols/masked/calibration.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <numbers>
#include <sstream>
#include <tuple>
#include <vector>

#include "learners/input_error.hpp"

namespace veil::protocols::masked {

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();

std::string num(double x) {
  std::ostringstream s;
  s.precision(6);
  s << x;
  return s.str();
}

/// Midpoint grid of the exact tail: spacing and half-width (|y| ≤ 10 leaves
/// out less than 1e-22 of either normal's mass).
constexpr double grid_step = 0.02;
constexpr double grid_reach = 10;

} // namespace

double chernoff_budget(double epsilon, double delta) {
  double l = std::log(1.0 / delta);
  double root = std::sqrt(l + epsilon) - std::sqrt(l);
  return 2 * root * root;
}

theorem3_sums theorem3_abc(double rho, std::size_t n) {
  theorem3_sums s;
  if (n == 0) {
    double d = std::sqrt(1 + 4 * rho);
    double x = (1 + 2 * rho - d) / (2 * rho);
    s.a = rho / d;
    s.b = s.a * x;
    s.c = s.a * x * x;
    return s;
  }
  // σ2 = 1, σ1² = ρ.
  for (std::size_t j = 0; j < n; ++j) {
    double angle =
        2 * std::numbers::pi * static_cast<double>(j) / static_cast<double>(n);
    double denominator = 2 * rho * (1 - std::cos(angle)) + 1;
    s.a += rho / denominator;
    s.b += rho * std::cos(angle) / denominator;
    s.c += rho * std::cos(2 * angle) / denominator;
  }
  auto nn = static_cast<double>(n);
  s.a /= nn;
  s.b /= nn;
  s.c /= nn;
  return s;
}

std::array<double, 3> theorem3_eigenvalues(const theorem3_sums& s) {
  double trace = 4 * s.b - s.a - s.c;
  double product = 2 * (2 * s.b * s.b - s.a * s.a - s.a * s.c);
  double root = std::sqrt(std::max(0.0, trace * trace - 4 * product));
  std::array<double, 3> k = {s.a - s.c, (trace - root) / 2, (trace + root) / 2};
  std::sort(k.begin(), k.end());
  return k;
}

double quadratic_tail(std::array<double, 3> k, double t, tail_method how) {
  std::sort(k.begin(), k.end());
  double top = k[2];
  if (top <= 0)
    return t > 0 ? 0.0 : 1.0;
  if (how == tail_method::bound) {
    // Negative k's only lower the sum; positive ones raised to the largest.
    int positive = (k[0] > 0) + (k[1] > 0) + 1;
    double x = std::max(0.0, t) / top;
    if (positive == 1)
      return std::erfc(std::sqrt(x / 2));
    if (positive == 2)
      return std::exp(-x / 2);
    // Three positive: P(chi²_3 ≥ x).
    return std::erfc(std::sqrt(x / 2)) +
           std::sqrt(2 * x / std::numbers::pi) * std::exp(-x / 2);
  }
  // P(top y3² ≥ t − k0 y1² − k1 y2²) = erfc(√(s / (2 top))) for s > 0, 1
  // otherwise, averaged over y1, y2 ~ N(0, 1): even in both, so over the
  // positive quarter, four times.
  auto steps = static_cast<std::size_t>(grid_reach / grid_step);
  std::vector<double> y2(steps), w(steps);
  for (std::size_t j = 0; j < steps; ++j) {
    double y = (static_cast<double>(j) + 0.5) * grid_step;
    y2[j] = y * y;
    w[j] = std::exp(-y2[j] / 2);
  }
  double total = 0;
  for (std::size_t i = 0; i < steps; ++i) {
    double s1 = t - k[0] * y2[i];
    double row = 0;
    for (std::size_t j = 0; j < steps; ++j) {
      double x = (s1 - k[1] * y2[j]) / (2 * top);
      // erfc(√x) < 1e-16 from x = 36: below anything a δ is compared with.
      if (x < 36)
        row += (x <= 0 ? 1.0 : std::erfc(std::sqrt(x))) * w[j];
    }
    total += w[i] * row;
  }
  return 4 * total * grid_step * grid_step / (2 * std::numbers::pi);
}

double pp_delta(double epsilon_pp, int w, double rho, tail_method how,
                bool tight_threshold) {
  double t = 2 * epsilon_pp / w - (tight_threshold ? 1 : 2) * std::log(2.0);
  if (t <= 0)
    return inf;
  auto k = theorem3_eigenvalues(theorem3_abc(rho));
  // The reverse direction (Σ₁⁻¹Σ₂ − I) has eigenvalues −k/(1 + k), and is
  // often the larger tail; the paper checks only the forward one.
  std::array<double, 3> reverse;
  for (int i = 0; i < 3; ++i)
    reverse[i] = -k[i] / (1 + k[i]);
  return w *
         std::max(quadratic_tail(k, t, how), quadratic_tail(reverse, t, how));
}

double choose_rho(double epsilon_pp, double delta_pp, int w, tail_method how,
                  bool tight_threshold) {
  if (w < 1)
    throw input_error("masked.w = " + std::to_string(w) +
                      ": expected at least 1 noise vector");
  if (!(delta_pp > 0 && delta_pp < 1))
    throw input_error("masked.delta_pp = " + num(delta_pp) +
                      ": expected a number in (0, 1)");
  if (!(epsilon_pp > w * std::log(2.0)))
    throw input_error(
        "masked.epsilon_pp = " + num(epsilon_pp) +
        " with masked.w = " + std::to_string(w) +
        ": Theorem 3 needs epsilon_pp > W ln 2 = " + num(w * std::log(2.0)) +
        " (each of the W noise vectors spends epsilon_pp / W, at least "
        "ln 2); lower masked.w or raise masked.epsilon_pp");
  // Every role and the coordinator calibrate from the same settings, and
  // the exact tail costs about 0.2 s: remembered per process.
  using key = std::tuple<double, double, int, tail_method, bool>;
  static std::mutex lock;
  static std::map<key, double> known;
  key k{epsilon_pp, delta_pp, w, how, tight_threshold};
  {
    std::lock_guard<std::mutex> guard(lock);
    if (auto it = known.find(k); it != known.end())
      return it->second;
  }
  auto fits = [&](double rho) {
    return pp_delta(epsilon_pp, w, rho, how, tight_threshold) <= delta_pp;
  };
  double lo = std::log(1e-8), hi = std::log(1e4);
  if (!fits(std::exp(lo)))
    throw input_error("masked.delta_pp = " + num(delta_pp) +
                      " cannot be met with masked.epsilon_pp = " +
                      num(epsilon_pp) + " and masked.w = " + std::to_string(w) +
                      " even with almost no structured noise (rho = 1e-8)");
  if (fits(std::exp(hi))) {
    lo = hi;
  } else {
    while (hi - lo > 1e-5) {
      double mid = (lo + hi) / 2;
      (fits(std::exp(mid)) ? lo : hi) = mid;
    }
  }
  std::lock_guard<std::mutex> guard(lock);
  known[k] = std::exp(lo);
  return std::exp(lo);
}

std::pair<double, double> advanced_composition(double epsilon0, double delta0,
                                               std::uint64_t k,
                                               double delta_prime) {
  auto kk = static_cast<double>(k);
  return {epsilon0 * std::sqrt(2 * kk * std::log(1 / delta_prime)) +
              kk * epsilon0 * std::expm1(epsilon0),
          kk * delta0 + delta_prime};
}

release_budget per_release(double epsilon, double delta, std::uint64_t k) {
  release_budget b{epsilon, delta, std::max<std::uint64_t>(k, 1), "none"};
  if (k <= 1)
    return b;
  auto kk = static_cast<double>(k);
  // Advanced composition: δ′ = δ/2 and δ0 = δ/(2k); the composed ε grows
  // with ε0, so bisect for the ε0 that spends exactly ε.
  double lo = 0, hi = epsilon;
  for (int i = 0; i < 200; ++i) {
    double mid = (lo + hi) / 2;
    (advanced_composition(mid, delta / (2 * kk), k, delta / 2).first <= epsilon
         ? lo
         : hi) = mid;
  }
  if (lo >= epsilon / kk) {
    b.epsilon = lo;
    b.delta = delta / (2 * kk);
    b.composition = "advanced";
  } else {
    b.epsilon = epsilon / kk;
    b.delta = delta / kk;
    b.composition = "basic";
  }
  return b;
}

std::uint64_t releases(accounting mode, int trees, int depth,
                       std::uint64_t max_candidates, int passive) {
  auto steps = static_cast<std::uint64_t>(trees) *
               static_cast<std::uint64_t>(depth) *
               static_cast<std::uint64_t>(std::max(passive, 1));
  switch (mode) {
  case accounting::per_release:
    return 1;
  case accounting::per_step:
    return steps;
  case accounting::strict:
    return steps * 2 * std::max<std::uint64_t>(max_candidates, 1);
  }
  return steps;
}

double noise_energy(double mu, double rho, std::uint64_t n_active,
                    std::uint64_t n_inactive, const release_budget& b,
                    sensitivity s) {
  double r = chernoff_budget(b.epsilon, b.delta);
  if (s == sensitivity::record)
    return mu * mu / r;
  return mu * mu *
         (static_cast<double>(n_inactive) / (2 * rho + 1) +
          static_cast<double>(n_active)) /
         r;
}

} // namespace veil::protocols::masked
