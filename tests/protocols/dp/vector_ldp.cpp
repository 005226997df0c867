// The data owners' vector mechanisms of LDP boosting (spec ldp-boosting
// §3.3–3.7, §8.5): the spec's constants (k against ε, C_D, B₁, the
// per-coordinate variance table), outputs in their stated ranges, and
// each mechanism unbiased with its formula's variance by Monte Carlo —
// tolerances 5 standard errors of the estimate (the variance's from the
// sample's fourth moment).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/vector_ldp.hpp"

namespace ldp = veil::protocols::dp;
using veil::protocols::crypto::seeded_random;

namespace {

/// Mean and variance of coordinate j's release over `n` draws of `mech`
/// on input t, checked against t and `variance`.
template <class Mechanism>
void unbiased_with_variance(const Mechanism& mech, std::vector<double> t,
                            std::size_t j, double variance, int n,
                            std::uint64_t seed) {
  seeded_random g(seed);
  double sum = 0, sq = 0, quad = 0;
  for (int i = 0; i < n; ++i) {
    double x = mech(g, t)[j] - t[j];
    sum += x;
    sq += x * x;
    quad += x * x * x * x;
  }
  // The mean is known (t): the variance is E[(x − t)²], estimated by the
  // mean square, whose standard error comes from the fourth moment (0 for
  // Duchi at t = 0, where (x − t)² = B² always: then a rounding margin).
  double mean = sum / n, var = sq / n;
  double se_mean = std::sqrt(variance / n);
  double se_var = std::sqrt((quad / n - var * var) / n);
  BOOST_TEST(std::abs(mean) < 5 * se_mean, "mean error " << mean);
  BOOST_TEST(std::abs(var - variance) < 5 * se_var + 1e-9 * variance,
             "variance " << var << " against " << variance);
}

} // namespace

BOOST_AUTO_TEST_SUITE(dp)
BOOST_AUTO_TEST_SUITE(vector_ldp)

BOOST_AUTO_TEST_CASE(the_specs_constants) {
  // k = max(1, min(D, ⌊ε/2.5⌋)).
  BOOST_TEST(ldp::piecewise_vector(2.49, 10).released() == 1u);
  BOOST_TEST(ldp::piecewise_vector(5, 10).released() == 2u);
  BOOST_TEST(ldp::piecewise_vector(7.5, 10).released() == 3u);
  BOOST_TEST(ldp::piecewise_vector(10, 10).released() == 4u);
  BOOST_TEST(ldp::piecewise_vector(100, 20).released() == 20u);
  BOOST_TEST(ldp::piecewise_vector(100, 50).released() == 40u);
  // C_D.
  const std::pair<std::size_t, double> cd[] = {
      {1, 1},         {2, 3},          {3, 2},           {4, 11.0 / 3},
      {5, 8.0 / 3},   {6, 4.2},        {20, 6.675464},   {40, 8.976346},
      {50, 9.906689}, {67, 10.220612}, {100, 13.564513}, {200, 18.746708}};
  for (auto [d, want] : cd)
    BOOST_TEST(std::abs(ldp::duchi_vector::c_d(d) - want) < 1e-6 * want, d);
  // B₁ (D = 1).
  BOOST_TEST(std::abs(ldp::duchi_vector(0.25, 1).bound() - 8.0416233284) <
             1e-9);
  BOOST_TEST(std::abs(ldp::duchi_vector(1, 1).bound() - 2.1639534137) < 1e-9);
  BOOST_TEST(std::abs(ldp::duchi_vector(3, 1).bound() - 1.1047913930) < 1e-9);
  // Per-coordinate variance at t = 0 (§3.3's table: PM / Duchi / Laplace).
  const struct {
    std::size_t d;
    double eps, pm, duchi, lap;
  } rows[] = {{20, 1, 73.64, 208.7, 3200},
              {20, 7, 1.291, 44.7, 65},
              {100, 3, 20.57, 224.6, 8889},
              {200, 9, 13.72, 351.6, 3951}};
  for (const auto& r : rows) {
    BOOST_TEST(std::abs(ldp::piecewise_vector(r.eps, r.d).variance(0) - r.pm) <
               5e-3 * r.pm);
    BOOST_TEST(std::abs(ldp::duchi_vector(r.eps, r.d).variance(0) - r.duchi) <
               5e-3 * r.duchi);
    BOOST_TEST(std::abs(ldp::laplace_vector(r.eps, r.d).variance() - r.lap) <
               5e-3 * r.lap);
  }
}

BOOST_AUTO_TEST_CASE(outputs_lie_in_their_ranges) {
  seeded_random g(1);
  std::vector<double> t{0.9, -0.3, 0.0, 1.0, -1.0};
  ldp::piecewise_vector pm(5, 5); // k = 2
  ldp::piecewise one(2.5);
  for (int i = 0; i < 2000; ++i) {
    auto x = pm(g, t);
    int nonzero = 0;
    for (auto v : x) {
      nonzero += v != 0;
      BOOST_TEST(std::abs(v) <= 2.5 * one.bound() + 1e-12);
    }
    BOOST_TEST(nonzero == 2);
  }
  ldp::duchi_vector du(1, 5);
  for (int i = 0; i < 2000; ++i)
    for (auto v : du(g, t))
      BOOST_TEST(std::abs(std::abs(v) - du.bound()) < 1e-12);
}

BOOST_AUTO_TEST_CASE(each_mechanism_is_unbiased_with_its_variance) {
  std::vector<double> t{0.7, -0.4, 0.0, 0.2};
  for (std::size_t j : {0u, 1u, 2u}) {
    ldp::piecewise_vector pm(3, 4); // k = 1: heavy tails
    unbiased_with_variance(pm, t, j, pm.variance(t[j]), 200000, 10 + j);
    ldp::piecewise_vector pm2(6, 4); // k = 2
    unbiased_with_variance(pm2, t, j, pm2.variance(t[j]), 200000, 20 + j);
    ldp::duchi_vector du(2, 4); // even D: ties in both halves
    unbiased_with_variance(du, t, j, du.variance(t[j]), 200000, 30 + j);
    ldp::duchi_vector du5(1, 5);
    unbiased_with_variance(du5, {0.7, -0.4, 0, 0.2, 0.5}, j, du5.variance(t[j]),
                           200000, 40 + j);
    ldp::laplace_vector lap(4, 4);
    unbiased_with_variance(lap, t, j, lap.variance(), 200000, 50 + j);
  }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
