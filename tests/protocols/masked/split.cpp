// MaskedXGBoost's split scores (spec maskedxgboost §4.5, §9 items 4, 19):
// without disturbing noise (σ2 = 0) the passive party's scores are the
// exact Eq. 8 scores whatever the structured noise; and the passive party,
// which made the noise matrices, recovers the active party's gradients
// exactly from two candidates' noised vectors: Theorem 2 does not hold
// against it (this test passes when the attack succeeds).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/gaussian.hpp"
#include "protocols/masked/calibration.hpp"
#include "protocols/masked/noise.hpp"
#include "protocols/masked/split.hpp"

using namespace veil::protocols;
using namespace veil::protocols::masked;

namespace {

/// Logistic gradients of random margins and labels, clipped as released.
void gradients(std::size_t n, crypto::seeded_random& rng,
               std::vector<double>& g, std::vector<double>& h,
               std::vector<int>* labels = nullptr, bool constant = false) {
  g.resize(n);
  h.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    double margin = constant ? 0.0 : dp::gaussian(rng, 1.0);
    int y = static_cast<int>(rng() & 1);
    double p = 1 / (1 + std::exp(-margin));
    g[j] = p - y;
    h[j] = p * (1 - p);
    if (labels)
      labels->push_back(y);
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(masked)
BOOST_AUTO_TEST_SUITE(split)

BOOST_AUTO_TEST_CASE(the_score_is_eq_8) {
  auto s = split_score(-3, 2, -5, 6, 1);
  BOOST_REQUIRE(s);
  BOOST_TEST(std::abs(*s - 0.5 * (9.0 / 3 + 4.0 / 5 - 25.0 / 7)) <= 1e-15);
  BOOST_TEST(!split_score(1, -2, 0, 3, 1));    // hL + λ < 0
  BOOST_TEST(!split_score(1, 5, 0, 3, 1));     // hR + λ < 0
  BOOST_TEST(!!split_score(1, -0.5, 0, 3, 1)); // hL + λ = 0.5 > 0
}

BOOST_AUTO_TEST_CASE(without_disturbing_noise_the_scores_are_exact) {
  crypto::seeded_random rng(11);
  for (std::size_t n : {5u, 100u, 3000u})
    for (double sigma1 : {0.1, 1.0, 10.0})
      for (int w : {1, 3})
        for (double energy : {1.0, 1e4}) {
          std::vector<double> g, h;
          gradients(n, rng, g, h);
          double total_g = 0, total_h = 0;
          for (std::size_t j = 0; j < n; ++j) {
            total_g += g[j];
            total_h += h[j];
          }
          std::vector<std::uint8_t> m(n);
          for (auto& x : m)
            x = static_cast<std::uint8_t>(rng() % 3 == 0);
          m[0] = 1;
          auto b = noise_matrix(m, sigma1, 0.0, w, rng);
          auto ng = add_noise(g, b, sphere_coefficients(w, energy, rng));
          auto nh = add_noise(h, b, sphere_coefficients(w, energy, rng));
          double gl = 0, hl = 0;
          for (std::size_t j = 0; j < n; ++j)
            if (m[j]) {
              gl += g[j];
              hl += h[j];
            }
          auto exact = split_score(gl, hl, total_g, total_h, 1.0);
          auto noisy = noisy_split_score(m, ng, nh, total_g, total_h, 1.0);
          BOOST_REQUIRE(exact && noisy);
          BOOST_TEST(std::abs(*noisy - *exact) <=
                         1e-9 * std::max(std::abs(*exact), 1.0),
                     n << " " << sigma1 << " " << w << " " << energy);
        }
}

BOOST_AUTO_TEST_CASE(the_passive_party_recovers_the_gradients) {
  // Calibrated noise, ε_AP = 1 over 60 releases, ρ of Adult at ε_PP = 1:
  // per coordinate a standard deviation of about a thousand, and yet.
  crypto::seeded_random rng(5);
  const std::size_t n = 2000;
  double rho = 0.0195;
  auto budget = per_release(1.0, 1e-3, 60);
  double energy = noise_energy(2 * std::exp(1.0) / (std::exp(1.0) + 1), rho, n,
                               0, budget, sensitivity::vector);
  for (int w : {1, 2}) {
    std::vector<double> g, h;
    std::vector<int> labels;
    gradients(n, rng, g, h, &labels, /*constant=*/true); // round 1
    std::vector<std::uint8_t> m1(n), m2(n);
    for (std::size_t j = 0; j < n; ++j) {
      m1[j] = static_cast<std::uint8_t>(j % 2);
      m2[j] = static_cast<std::uint8_t>(j % 3 == 0);
    }
    auto b1 = noise_matrix(m1, std::sqrt(rho), 1.0, w, rng);
    auto b2 = noise_matrix(m2, std::sqrt(rho), 1.0, w, rng);
    auto n1 = add_noise(g, b1, sphere_coefficients(w, energy, rng));
    auto n2 = add_noise(g, b2, sphere_coefficients(w, energy, rng));
    double spread = 0;
    for (std::size_t j = 0; j < n; ++j)
      spread += (n1[j] - g[j]) * (n1[j] - g[j]);
    BOOST_TEST_MESSAGE("W " << w << ": noise std per coordinate "
                            << std::sqrt(spread / n));
    BOOST_TEST(std::sqrt(spread / n) > 100.0);
    auto guess = recover_gradients(b1, b2, n1, n2, w);
    double worst = 0;
    std::size_t right = 0;
    for (std::size_t j = 0; j < n; ++j) {
      worst = std::max(worst, std::abs(guess[j] - g[j]));
      right += (guess[j] < 0 ? 1 : 0) == labels[j];
    }
    BOOST_TEST(worst <= 1e-8, "W " << w << ": " << worst);
    BOOST_TEST(right == n);
  }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
