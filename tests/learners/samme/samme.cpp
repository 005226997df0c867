// SAMME and its base learners (spec ldp-boosting §3.1, §5, §8.5): α and
// the re-weighting on a hand-computed case; the stump's φ identity
// (weighted error = (|S| − φ)/(2|S|)); weighted centroids; logistic
// regression at its optimum (the KKT condition λθ = Σ w (y − σ) x, hence
// |θ_j| ≤ max |x_ij| / λ); boosting stumps lowers the training error where
// one stump cannot.
#include "learners/samme/samme.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <random>

using namespace veil::learners;

namespace {

labelled_rows diagonal(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  labelled_rows d;
  d.features = 2;
  for (std::size_t i = 0; i < n; ++i) {
    double a = u(g), b = u(g);
    d.x.push_back(a);
    d.x.push_back(b);
    d.y.push_back(a + b > 0 ? 1 : 0);
  }
  return d;
}

} // namespace

BOOST_AUTO_TEST_SUITE(samme)
BOOST_AUTO_TEST_SUITE(samme)

BOOST_AUTO_TEST_CASE(alpha_and_reweighting_by_hand) {
  // err 0.25, K = 2: α = log 3; K = 3: log 3 + log 2.
  BOOST_TEST(std::abs(samme_alpha(0.25, 2) - std::log(3.0)) < 1e-15);
  BOOST_TEST(std::abs(samme_alpha(0.25, 3) - std::log(6.0)) < 1e-15);
  BOOST_TEST(samme_alpha(0.5, 2) == 0.0);
  // Four rows, a stump wrong on the last: weights (1,1,1,3)/6 after.
  labelled_rows d;
  d.features = 1;
  d.x = {0, 1, 2, 3};
  d.y = {0, 0, 1, 0};
  stump s;
  s.threshold = 1.5; // x ≥ 1.5 -> class 1
  std::vector<double> w(4, 0.25);
  double err = weighted_error(s, d, w);
  BOOST_TEST(err == 0.25);
  samme_update(s, samme_alpha(err, 2), d, w);
  BOOST_TEST(std::abs(w[3] - 0.5) < 1e-15);
  BOOST_TEST(std::abs(w[0] - 1.0 / 6) < 1e-15);
}

BOOST_AUTO_TEST_CASE(stump_error_is_the_phi_identity) {
  auto d = diagonal(300, 1);
  std::vector<double> w(d.rows());
  std::mt19937_64 g(2);
  double total = 0;
  for (auto& v : w)
    total += v = std::uniform_real_distribution<double>(0.1, 1)(g);
  for (auto& v : w)
    v /= total;
  auto thr = stump::best_thresholds(d, w);
  auto delta = stump::differences(d, w, thr);
  auto s = stump::from_differences(delta, thr);
  double phi =
      std::abs(delta[2 * s.feature]) + std::abs(delta[2 * s.feature + 1]);
  BOOST_TEST(std::abs(weighted_error(s, d, w) - (1 - phi) / 2) < 1e-12);
  // No other feature's stump at its threshold does better.
  for (std::size_t j = 0; j < d.features; ++j) {
    double other = std::abs(delta[2 * j]) + std::abs(delta[2 * j + 1]);
    BOOST_TEST(other <= phi);
  }
}

BOOST_AUTO_TEST_CASE(centroids_are_weighted_means) {
  labelled_rows d;
  d.features = 1;
  d.x = {0, 2, 10, 20};
  d.y = {0, 0, 1, 1};
  std::vector<double> w{0.1, 0.3, 0.5, 0.1};
  auto c = nearest_centroid::fit(d, w, 2);
  BOOST_TEST(std::abs(c.centroids[0][0] - 1.5) < 1e-15);
  BOOST_TEST(std::abs(c.centroids[1][0] - (5.0 + 2.0) / 0.6) < 1e-12);
  std::vector<double> x{6};
  BOOST_TEST(c.predict(x) == 0);
}

BOOST_AUTO_TEST_CASE(logistic_regression_meets_its_optimality_condition) {
  auto d = diagonal(40, 3);
  std::vector<double> w(d.rows(), 1.0 / 40);
  double lambda = 1;
  auto m = logistic_regression::fit(d, w, lambda);
  for (std::size_t j = 0; j < d.features; ++j) {
    double rhs = 0;
    for (std::size_t i = 0; i < d.rows(); ++i) {
      auto x = d.row(i);
      double s = 1 / (1 + std::exp(-(m.theta[0] * x[0] + m.theta[1] * x[1])));
      rhs += w[i] * (d.y[i] - s) * x[j];
    }
    BOOST_TEST(std::abs(lambda * m.theta[j] - rhs) < 1e-10);
    BOOST_TEST(std::abs(m.theta[j]) <= 1.0);
  }
  BOOST_TEST(weighted_error(m, d, w) < 0.2);
}

BOOST_AUTO_TEST_CASE(boosted_stumps_beat_one_stump) {
  auto d = diagonal(400, 4);
  auto fit = [](const labelled_rows& rows, std::span<const double> w) {
    auto thr = stump::best_thresholds(rows, w);
    return stump::from_differences(stump::differences(rows, w, thr), thr);
  };
  auto one = train_samme<stump>(d, 2, 1, fit);
  auto many = train_samme<stump>(d, 2, 30, fit);
  auto error = [&](const samme_ensemble<stump>& e) {
    double wrong = 0;
    for (std::size_t i = 0; i < d.rows(); ++i)
      wrong += e.predict(d.row(i)) != d.y[i];
    return wrong / static_cast<double>(d.rows());
  };
  BOOST_TEST(error(one) > 0.15); // a diagonal boundary: one axis cut
  BOOST_TEST(error(many) < error(one) / 2);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
