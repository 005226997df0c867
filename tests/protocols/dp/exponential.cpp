// The exact exponential-mechanism sampler with score -|o - c| (spec opboost
// §4.0 (a)) and its closed-form law.
#include <boost/multiprecision/cpp_bin_float.hpp>
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/exponential.hpp"
#include "tests/protocols/dp/support.hpp"

namespace vdp = veil::protocols::dp;
namespace vcrypto = veil::protocols::crypto;
namespace vt = veil::test;
using big = boost::multiprecision::cpp_bin_float_50;

BOOST_AUTO_TEST_SUITE(dp)
BOOST_AUTO_TEST_SUITE(exponential)

BOOST_AUTO_TEST_CASE(closed_form_mass_equals_the_sum) {
  // log S(c) of the closed forms against the direct 50-digit sum, for
  // centres inside, at the ends and outside the range.
  for (auto h :
       {vdp::rational{1, 25}, vdp::rational{1, 20000}, vdp::rational{7, 2}}) {
    big hb = vdp::to_real<big>(h);
    for (std::int64_t c : {-30, 1, 4, 10, 25}) {
      big direct = 0;
      for (std::int64_t o = 1; o <= 10; ++o)
        direct += exp(-hb * std::abs(o - c));
      big closed = vdp::log_mass(hb, 1, 10, c);
      BOOST_TEST(static_cast<double>(abs(closed - log(direct))) < 1e-40);
      // The double version agrees to double precision.
      double d = vdp::log_mass(h.value(), 1, 10, c);
      BOOST_TEST(std::fabs(d - static_cast<double>(log(direct))) <
                 1e-13 * (1 + std::fabs(d)));
    }
  }
}

BOOST_AUTO_TEST_CASE(one_attempt_is_exact_by_enumeration) {
  // Short ranges (M h <= 1) use a uniform proposal and an exp(-h d) coin:
  // enumerate every path of one attempt; the accepted law must equal the
  // exponential mechanism's PMF and the acceptance S(c)/n.
  struct em_case {
    std::int64_t lo, hi, c;
    vdp::rational h;
  };
  for (auto k : {em_case{0, 9, 0, {1, 25}}, em_case{0, 9, 4, {1, 25}},
                 em_case{0, 9, 9, {1, 9}}, em_case{-3, 3, 1, {1, 7}},
                 em_case{5, 5, 5, {1, 2}}}) {
    vdp::exponential_mechanism em(k.lo, k.hi, k.h);
    BOOST_REQUIRE(em.short_range(k.c));
    auto law = vt::enumerate_attempt<true>(
        [&](auto& g) { return em.attempt(g, k.c); }, 1e-30L);
    long double acc = law.accepted_mass();
    BOOST_TEST(law.pruned == 0.0L);
    BOOST_TEST(std::fabs(static_cast<double>(acc) - em.acceptance(k.c)) <
               1e-15);
    for (auto o = k.lo; o <= k.hi; ++o) {
      long double p = law.accepted.count(o) ? law.accepted.at(o) / acc : 0;
      BOOST_TEST(std::fabs(static_cast<double>(p) - em.pmf(k.c, o)) < 1e-15);
    }
  }
}

BOOST_AUTO_TEST_CASE(frequencies_match_on_domains_up_to_ten_thousand) {
  // 10^6 draws per case against the exact PMF, sparse cells pooled (5
  // expected draws at least). 7 cases: alpha = 1e-3 / 7 (Bonferroni). The
  // cases cover both proposals (uniform for M h <= 1, two-sided geometric
  // otherwise) on D = [1, 10^4], at the ends and in the middle.
  vcrypto::seeded_random g(vt::dp_seed + 5);
  constexpr std::uint64_t draws = 1000000;
  struct em_case {
    std::int64_t lo, hi, c;
    vdp::rational h;
  };
  const em_case cases[] = {
      {1, 10000, 1, {1, 20000}},    // uniform proposal, M h ~ 0.5
      {1, 10000, 5000, {1, 20000}}, // uniform proposal
      {1, 10000, 1, {1, 2000}},     // geometric proposal, wide law
      {1, 10000, 5000, {1, 2000}},  {1, 10000, 10000, {1, 200}},
      {1, 10000, 77, {16, 25}}, // eps = 1.28: concentrated
      {1, 10, 3, {1, 25}},      // the paper's [1, 10], eps = 0.08
  };
  for (const auto& k : cases) {
    vdp::exponential_mechanism em(k.lo, k.hi, k.h);
    vt::require_draws_fit(
        [&] { return em(g, k.c); }, k.lo, k.hi,
        [&](std::int64_t o) { return em.pmf(k.c, o); }, draws, 1e-3 / 7,
        "[" + std::to_string(k.lo) + ", " + std::to_string(k.hi) +
            "] c = " + std::to_string(k.c) + " h = " + vdp::to_string(k.h));
  }
}

BOOST_AUTO_TEST_CASE(acceptance_is_bounded_below) {
  // The sampler's expected rounds stay below 1 / 0.316 for every range and
  // rate: S(c)/n >= e^-1 with the uniform proposal, (1 - e^-1)/2 with the
  // geometric one.
  const double floor = (1 - std::exp(-1.0)) / 2;
  for (std::int64_t n : {1, 2, 4, 10, 100, 10000})
    for (auto h :
         {vdp::rational{1, 1000000}, vdp::rational{1, 260},
          vdp::rational{1, 25}, vdp::rational{1, 1}, vdp::rational{50, 1}}) {
      vdp::exponential_mechanism em(0, n - 1, h);
      for (std::int64_t c : {std::int64_t{0}, n / 3, n - 1})
        BOOST_TEST(em.acceptance(c) >= floor,
                   "n " << n << " h " << vdp::to_string(h) << " c " << c);
    }
}

BOOST_AUTO_TEST_CASE(bad_configurations_are_refused) {
  BOOST_CHECK_THROW(vdp::exponential_mechanism(2, 1, {1, 2}),
                    std::invalid_argument);
  BOOST_CHECK_THROW(vdp::exponential_mechanism(1, 2, {0, 1}),
                    std::invalid_argument);
  vdp::exponential_mechanism em(1, 10, {1, 25});
  BOOST_TEST(em.cost().epsilon == 0.08);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
