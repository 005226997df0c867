// Order preservation measured by the weighted Kendall tau_dr (spec opboost
// §7.3, §9.5): its exact expectation and variance from the mechanisms'
// PMFs (opboost::tau_dr_moments), against the spec's table and against
// 10k-value runs.
#include <boost/math/distributions/normal.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "learners/metrics/kendall.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/opboost/mechanism.hpp"
#include "protocols/opboost/theory.hpp"
#include "tests/protocols/dp/support.hpp"

namespace vcrypto = veil::protocols::crypto;
namespace vop = veil::protocols::opboost;
namespace vt = veil::test;

namespace {

struct row {
  std::string name;
  vop::mechanism_kind kind;
  std::int64_t theta;
  double alpha;
  double tau[5]; // at eps 0.08, 0.32, 1.28, 2.56, 5.12
};

const double epsilons[5] = {0.08, 0.32, 1.28, 2.56, 5.12};

// spec §9.5's table of expected tau_dr (uniform data on [1, 10]).
const std::vector<row>& table() {
  using vop::mechanism_kind;
  static const std::vector<row> rows = {
      {"global-map",
       mechanism_kind::global_map,
       1,
       1,
       {0.0810, 0.3132, 0.8135, 0.9478, 0.9903}},
      {"local-map 2",
       mechanism_kind::local_map,
       2,
       1,
       {0.9703, 0.9721, 0.9791, 0.9868, 0.9957}},
      {"local-map 4",
       mechanism_kind::local_map,
       4,
       1,
       {0.8770, 0.8897, 0.9349, 0.9703, 0.9930}},
      {"adj-map 2 0.5",
       mechanism_kind::adj_map,
       2,
       0.5,
       {0.0608, 0.2411, 0.7361, 0.9305, 0.9917}},
      {"adj-map 2 1",
       mechanism_kind::adj_map,
       2,
       1,
       {0.0692, 0.2721, 0.7745, 0.9388, 0.9896}},
      {"adj-map 2 2",
       mechanism_kind::adj_map,
       2,
       2,
       {0.0746, 0.2913, 0.7930, 0.9391, 0.9826}},
      {"adj-map 2 8",
       mechanism_kind::adj_map,
       2,
       8,
       {0.0792, 0.3078, 0.8063, 0.9374, 0.9719}},
      {"adj-map 4 0.5",
       mechanism_kind::adj_map,
       4,
       0.5,
       {0.0563, 0.2266, 0.7256, 0.9338, 0.9928}},
      {"adj-map 4 1",
       mechanism_kind::adj_map,
       4,
       1,
       {0.0672, 0.2671, 0.7705, 0.9339, 0.9840}},
      {"adj-map 4 2",
       mechanism_kind::adj_map,
       4,
       2,
       {0.0754, 0.2959, 0.7853, 0.9141, 0.9613}},
      {"adj-map 4 8",
       mechanism_kind::adj_map,
       4,
       8,
       {0.0835, 0.3233, 0.7901, 0.8813, 0.9046}},
  };
  return rows;
}

vop::desensitizer make(vop::mechanism_kind kind, double eps, std::int64_t theta,
                       double alpha) {
  vop::mechanism_params p;
  p.kind = kind;
  p.epsilon = eps;
  p.theta = theta;
  p.alpha = alpha;
  return vop::make_desensitizer(p, {1, 10});
}

const vop::domain d10{1, 10};
const std::vector<double> equal_counts(10, 1000.0);

} // namespace

BOOST_AUTO_TEST_SUITE(opboost)
BOOST_AUTO_TEST_SUITE(kendall)

BOOST_AUTO_TEST_CASE(expected_tau_reproduces_the_spec_table) {
  for (const auto& r : table())
    for (int e = 0; e < 5; ++e) {
      auto mo = vop::tau_dr_moments(make(r.kind, epsilons[e], r.theta, r.alpha),
                                    d10, equal_counts);
      BOOST_TEST(std::fabs(mo.mean - r.tau[e]) <= 5e-5,
                 r.name << " eps " << epsilons[e] << ": " << mo.mean);
    }
  // Piecewise: the spec's Monte-Carlo values (+-0.01) against the exact
  // expectation.
  const double piecewise[4][2] = {
      {0.08, 0.022}, {1.28, 0.387}, {2.56, 0.681}, {5.12, 0.921}};
  for (const auto& [eps, tau] : piecewise) {
    auto mo = vop::tau_dr_moments(
        make(vop::mechanism_kind::piecewise, eps, 1, 1), d10, equal_counts);
    BOOST_TEST(std::fabs(mo.mean - tau) <= 0.01, "piecewise eps " << eps);
  }
}

BOOST_AUTO_TEST_CASE(ten_thousand_values_land_near_the_expectation) {
  // One run of 10k values (1000 per value of [1, 10]) per cell of the
  // table (59 cases): |tau_dr - E| <= z SD with the exact SD and z the
  // two-sided normal quantile at 1e-3 / 59 (Bonferroni). The spec's
  // +-0.01 is about 2.5 SD at eps = 1.28, too tight for 59 cases.
  const double z = boost::math::quantile(
      boost::math::complement(boost::math::normal(), 1e-3 / 59 / 2));
  vcrypto::seeded_random g(vt::opboost_seed + 30);
  std::vector<double> raw;
  for (int i = 0; i < 10000; ++i)
    raw.push_back(1 + i % 10);
  std::vector<row> rows = table();
  rows.push_back({"piecewise", vop::mechanism_kind::piecewise, 1, 1, {}});
  int cases = 0;
  double worst_in_sd = 0, widest = 0;
  for (const auto& r : rows)
    for (int e = 0; e < 5; ++e) {
      if (r.kind == vop::mechanism_kind::piecewise && e == 1)
        continue; // not in the spec's table
      auto m = make(r.kind, epsilons[e], r.theta, r.alpha);
      auto mo = vop::tau_dr_moments(m, d10, equal_counts);
      std::vector<double> noisy;
      noisy.reserve(raw.size());
      for (double x : raw)
        noisy.push_back(
            static_cast<double>(m(g, static_cast<std::int64_t>(x))));
      double tau = veil::learners::weighted_kendall(raw, noisy).tau_dr;
      BOOST_TEST(std::fabs(tau - mo.mean) <= z * mo.sd,
                 r.name << " eps " << epsilons[e] << ": " << tau << " vs "
                        << mo.mean << " +- " << z * mo.sd);
      worst_in_sd = std::max(worst_in_sd, std::fabs(tau - mo.mean) / mo.sd);
      widest = std::max(widest, z * mo.sd);
      ++cases;
    }
  BOOST_TEST(cases == 59);
  BOOST_TEST_MESSAGE("z = " << z << ", largest deviation " << worst_in_sd
                            << " SD, widest band " << widest);
}

BOOST_AUTO_TEST_CASE(exact_variance_matches_repeated_runs) {
  // The variance formula itself, checked by 400 runs of 2000 values
  // (Global-map, eps = 1.28): the sample variance of tau_dr within the
  // chi-square band of 399 degrees of freedom at 1e-3.
  vcrypto::seeded_random g(vt::opboost_seed + 31);
  auto m = make(vop::mechanism_kind::global_map, 1.28, 1, 1);
  std::vector<double> counts(10, 200.0);
  auto mo = vop::tau_dr_moments(m, d10, counts);
  std::vector<double> raw;
  for (int i = 0; i < 2000; ++i)
    raw.push_back(1 + i % 10);
  const int runs = 400;
  double sum = 0, sum2 = 0;
  for (int r = 0; r < runs; ++r) {
    std::vector<double> noisy;
    for (double x : raw)
      noisy.push_back(static_cast<double>(m(g, static_cast<std::int64_t>(x))));
    double t = veil::learners::weighted_kendall(raw, noisy).tau_dr;
    sum += t;
    sum2 += t * t;
  }
  double mean = sum / runs;
  double var = (sum2 - runs * mean * mean) / (runs - 1);
  boost::math::chi_squared chi(runs - 1);
  double lo = boost::math::quantile(chi, 5e-4) / (runs - 1);
  double hi = boost::math::quantile(complement(chi, 5e-4)) / (runs - 1);
  double ratio = var / (mo.sd * mo.sd);
  BOOST_TEST_MESSAGE("variance ratio " << ratio << " in [" << lo << ", " << hi
                                       << "]");
  BOOST_TEST(ratio >= lo);
  BOOST_TEST(ratio <= hi);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
