// Weighted Kendall's tau (spec opboost §7.3, §9.5): the O(n log n) algorithm
// against the O(n^2) definition.
#include "learners/metrics/kendall.hpp"

#include "learners/input_error.hpp"
#include "tests/support/random_data.hpp"
#include "tests/support/seeds.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace vl = veil::learners;
namespace vt = veil::test;

namespace {

int sgn(double x) {
  return (x > 0) - (x < 0);
}

/// The definition, pair by pair, with dense ranks of r as weights; exact
/// integer sums.
struct brute_sums {
  std::int64_t rs = 0, rr = 0, ss = 0;
};

brute_sums brute_force(const std::vector<double>& r,
                       const std::vector<double>& s) {
  std::vector<double> distinct(r);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  auto rank = [&](double x) {
    return static_cast<std::int64_t>(
        std::lower_bound(distinct.begin(), distinct.end(), x) -
        distinct.begin());
  };
  brute_sums b;
  for (std::size_t i = 0; i < r.size(); ++i)
    for (std::size_t j = i + 1; j < r.size(); ++j) {
      std::int64_t w = std::llabs(rank(r[i]) - rank(r[j]));
      int a = sgn(r[i] - r[j]), c = sgn(s[i] - s[j]);
      b.rs += a * c * w;
      b.rr += a * a * w;
      b.ss += c * c * w;
    }
  return b;
}

} // namespace

BOOST_AUTO_TEST_SUITE(metrics)
BOOST_AUTO_TEST_SUITE(kendall)

BOOST_AUTO_TEST_CASE(identity_gives_one_and_reversal_minus_one) {
  std::vector<double> r = {3, 1, 4, 1, 5, 9, 2, 6, 5, 3};
  auto same = vl::weighted_kendall(r, r);
  BOOST_TEST(same.tau == 1.0);
  BOOST_TEST(same.tau_dr == 1.0);
  std::vector<double> rev;
  for (double x : r)
    rev.push_back(-x);
  auto back = vl::weighted_kendall(r, rev);
  BOOST_TEST(back.tau == -1.0);
  BOOST_TEST(back.tau_dr == -1.0);
  // An order-preserving but non-linear map keeps tau = 1.
  std::vector<double> cubed;
  for (double x : r)
    cubed.push_back(x * x * x + 7);
  BOOST_TEST(vl::weighted_kendall(r, cubed).tau == 1.0);
}

BOOST_AUTO_TEST_CASE(fast_equals_brute_force_with_ties) {
  vt::rng g(vt::metrics_seed + 40);
  for (std::size_t n : {1u, 2u, 3u, 17u, 100u, 500u})
    for (std::uint64_t levels : {2u, 5u, 40u, 1000000u}) {
      std::vector<double> r(n), s(n);
      for (std::size_t i = 0; i < n; ++i) {
        r[i] = static_cast<double>(g.below(levels));
        // s: noisy copy of r, ties included.
        s[i] = r[i] + static_cast<double>(g.below(7)) - 3;
      }
      auto fast = vl::weighted_kendall(r, s);
      auto b = brute_force(r, s);
      BOOST_TEST(fast.rs == static_cast<long double>(b.rs));
      BOOST_TEST(fast.rr == static_cast<long double>(b.rr));
      BOOST_TEST(fast.ss == static_cast<long double>(b.ss));
      if (b.rr > 0 && b.ss > 0) {
        double tau =
            static_cast<double>(b.rs) / (std::sqrt(static_cast<double>(b.rr)) *
                                         std::sqrt(static_cast<double>(b.ss)));
        BOOST_TEST(fast.tau == tau, boost::test_tools::tolerance(1e-12));
        BOOST_TEST(fast.tau_dr ==
                       static_cast<double>(b.rs) / static_cast<double>(b.rr),
                   boost::test_tools::tolerance(1e-12));
        // Ties in s shrink <s,s>: the paper's tau is at least tau_dr.
        if (b.rs > 0)
          BOOST_TEST(fast.tau >= fast.tau_dr);
      } else {
        BOOST_TEST(std::isnan(fast.tau));
      }
    }
}

BOOST_AUTO_TEST_CASE(large_inputs_keep_exact_sums) {
  // 200k values of 10 levels (the OpBoost domain): s = r gives tau = 1;
  // the sums reach ~10^14 and stay exact.
  vt::rng g(vt::metrics_seed + 41);
  std::vector<double> r(200000);
  for (auto& x : r)
    x = static_cast<double>(g.below(10));
  auto k = vl::weighted_kendall(r, r);
  BOOST_TEST(k.rs == k.rr);
  BOOST_TEST(k.ss == k.rr);
  BOOST_TEST(k.tau == 1.0);
}

BOOST_AUTO_TEST_CASE(bad_input_is_refused) {
  std::vector<double> a = {1, 2, 3}, b = {1, 2};
  BOOST_CHECK_THROW(vl::weighted_kendall(a, b), veil::input_error);
  std::vector<double> c = {1, std::nan(""), 3};
  BOOST_CHECK_THROW(vl::weighted_kendall(a, c), veil::input_error);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
