// MaskedXGBoost's noises (spec maskedxgboost §4.3–4.4, §9 items 2, 3, 5,
// 12): the paper's Example 2 digit for digit, the null-space property on
// random splitting vectors, the covariance of a noise column (edge cases
// included), Algorithm 2's coefficients on the sphere.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/masked/noise.hpp"

using namespace veil::protocols;
using namespace veil::protocols::masked;

namespace {

double dot(std::span<const std::uint8_t> m, std::span<const double> x) {
  double s = 0;
  for (std::size_t j = 0; j < m.size(); ++j)
    s += m[j] ? x[j] : 0;
  return s;
}

double l1(std::span<const double> x) {
  double s = 0;
  for (auto v : x)
    s += std::abs(v);
  return s;
}

} // namespace

BOOST_AUTO_TEST_SUITE(masked)
BOOST_AUTO_TEST_SUITE(noise)

BOOST_AUTO_TEST_CASE(example_2_of_the_paper) {
  std::vector<std::uint8_t> m = {0, 0, 0, 0, 1, 1, 1, 1};
  std::vector<double> p = {0.9109, -0.2397, 0.1810, 0.2442};
  std::vector<double> q = {-0.9613, 1.6737, 5.0767, -2.6467};
  std::vector<double> r = {0.0138,  -0.1907, -0.0365, -0.0848,
                           -0.0765, -0.1128, 0.0078,  0.2107};
  std::vector<double> zero(8, 0.0);
  auto u = noise_column(m, p, std::vector<double>(4, 0.0), zero);
  const double want_u[] = {0, 0, 0, 0, 0.6667, -1.1506, 0.4207, 0.0632};
  for (int j = 0; j < 8; ++j)
    BOOST_TEST(std::abs(u[j] - want_u[j]) <= 1e-4, j);
  auto b = noise_column(m, p, q, r);
  const double want_b[] = {-0.9475, 1.4830,  5.0402, -2.7315,
                           0.5902,  -1.2634, 0.4285, 0.2739};
  for (int j = 0; j < 8; ++j)
    BOOST_TEST(std::abs(b[j] - want_b[j]) <= 1e-4, j);
  BOOST_TEST(std::abs(dot(m, u)) <= 1e-15);
  BOOST_TEST(std::abs(dot(m, b) - 0.0292) <= 1e-4);
  BOOST_TEST(std::abs(dot(m, b) - dot(m, r)) <= 1e-15);
}

BOOST_AUTO_TEST_CASE(the_split_score_sees_only_the_disturbing_noise) {
  crypto::seeded_random rng(42);
  for (std::size_t n : {1u, 2u, 3u, 17u, 1000u, 10000u}) {
    for (std::size_t active :
         {std::size_t{1}, std::size_t{2}, std::size_t{3}, n / 2 + 1}) {
      if (active > n)
        continue;
      std::vector<std::uint8_t> m(n, 0);
      // Active instances scattered over the node.
      for (std::size_t k = 0, placed = 0; placed < active; ++k)
        if (!m[(k * 7919) % n]) {
          m[(k * 7919) % n] = 1;
          ++placed;
        }
      for (double sigma1 : {0.0, 1.0, 1e3}) {
        auto b = noise_matrix(m, sigma1, 0.0, 2, rng); // no r: b = u + v
        for (int k = 0; k < 2; ++k) {
          std::span<const double> col(b.data() + k * n, n);
          BOOST_TEST(std::abs(dot(m, col)) <= 1e-12 * std::max(l1(col), 1.0),
                     n << " " << active << " " << sigma1);
        }
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(a_column_has_the_covariance_of_section_4_3) {
  // σ1² = 1, σ2² = 0.1; 10⁶ columns: a covariance's standard error is at
  // most √(2·2.1²/10⁶) < 0.003; 116 entries are checked, so each gets 4.5
  // of them (0.0134: a false alarm anywhere at most 0.1%, Bonferroni).
  crypto::seeded_random rng(7);
  const double s1sq = 1, s2sq = 0.1, diag = 2 * s1sq + s2sq;
  for (std::vector<std::uint8_t> m :
       {std::vector<std::uint8_t>{0, 0, 0, 0, 1, 1, 1, 1},
        std::vector<std::uint8_t>{0, 1, 0, 0, 0, 1}, // n_A = 2: −2σ1²
        std::vector<std::uint8_t>{0, 0, 1, 0}}) {    // n_A = 1: σ2² only
    auto n = m.size();
    std::vector<double> sum(n * n, 0.0);
    const int samples = 1000000;
    for (int s = 0; s < samples; ++s) {
      auto b = noise_matrix(m, std::sqrt(s1sq), std::sqrt(s2sq), 1, rng);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
          sum[i * n + j] += b[i] * b[j];
    }
    std::vector<std::size_t> active;
    for (std::size_t i = 0; i < n; ++i)
      if (m[i])
        active.push_back(i);
    auto expected = [&](std::size_t i, std::size_t j) {
      if (active.size() == 1 && m[i] && i == j)
        return s2sq;
      if (i == j)
        return diag;
      if (!m[i] || !m[j])
        return 0.0;
      auto a = static_cast<std::size_t>(
          std::find(active.begin(), active.end(), i) - active.begin());
      auto c = static_cast<std::size_t>(
          std::find(active.begin(), active.end(), j) - active.begin());
      auto na = active.size();
      bool neighbours = (a + 1) % na == c || (c + 1) % na == a;
      if (!neighbours)
        return 0.0;
      return na == 2 ? -2 * s1sq : -s1sq;
    };
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j)
        BOOST_TEST(std::abs(sum[i * n + j] / samples - expected(i, j)) <=
                       0.0134,
                   "n " << n << " (" << i << ", " << j << ")");
  }
}

BOOST_AUTO_TEST_CASE(algorithm_2_coefficients_lie_on_the_sphere) {
  crypto::seeded_random rng(3);
  for (int w : {1, 2, 5})
    for (double energy : {1e-6, 1.0, 12345.0}) {
      auto c = sphere_coefficients(w, energy, rng);
      double sq = 0;
      for (auto x : c)
        sq += x * x;
      BOOST_TEST(std::abs(sq - energy) <= 1e-12 * energy);
    }
  std::vector<double> g = {1, 2, 3};
  std::vector<double> b = {1, 0, 0, 0, 1, 0}; // two columns
  auto out = add_noise(g, b, std::vector<double>{2, -1});
  BOOST_TEST((out == std::vector<double>{3, 1, 3}));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
