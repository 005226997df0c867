// The exact discrete Laplace sampler (CKS 2020 Alg. 2) and the paper's
// bounded version by resampling (spec opboost §4.0 (b)-(c), §4.4, §9.2).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/discrete_laplace.hpp"
#include "protocols/dp/exponential.hpp"
#include "tests/protocols/dp/support.hpp"

namespace vdp = veil::protocols::dp;
namespace vcrypto = veil::protocols::crypto;
namespace vt = veil::test;

namespace {

/// The closed form (1 - q)/(1 + q) q^|z|, in long double.
long double lap_pmf(const vdp::rational& rate, std::int64_t z) {
  long double r = rate.value_ld();
  return std::tanh(r / 2) * std::exp(-r * std::llabs(z));
}

} // namespace

BOOST_AUTO_TEST_SUITE(dp)
BOOST_AUTO_TEST_SUITE(discrete_laplace)

BOOST_AUTO_TEST_CASE(one_attempt_is_exact_by_enumeration) {
  // Given exact Bernoulli(exp(-x)) coins (tested in dp/bernoulli), enumerate
  // every path of one attempt of CKS Alg. 2: conditioned on acceptance, the
  // output law must be (1-q)/(1+q) q^|z| exactly (up to pruned paths). The
  // rates cover s = 1 and s > 1 (Y = floor(X/s)) and t > s and t < s.
  for (auto rate :
       {vdp::rational{1, 2}, vdp::rational{3, 2}, vdp::rational{2, 5},
        vdp::rational{1, 1}, vdp::rational{5, 3}}) {
    vdp::discrete_laplace lap(rate);
    auto law = vt::enumerate_attempt<true>(
        [&](auto& g) { return lap.attempt(g); }, 1e-22L);
    long double acc = law.accepted_mass();
    long double total = acc + law.rejected + law.pruned;
    BOOST_TEST(std::fabs(static_cast<double>(total - 1)) < 1e-15);
    double worst = 0;
    for (std::int64_t z = -12; z <= 12; ++z) {
      long double p = law.accepted.count(z) ? law.accepted.at(z) / acc : 0;
      worst =
          std::max(worst, static_cast<double>(std::fabs(p - lap_pmf(rate, z))));
    }
    BOOST_TEST_MESSAGE("rate " << vdp::to_string(rate) << ": acceptance "
                               << static_cast<double>(acc) << ", pruned "
                               << static_cast<double>(law.pruned)
                               << ", max |P - pmf| " << worst);
    BOOST_TEST(worst < static_cast<double>(law.pruned / acc) + 1e-15);
  }
}

BOOST_AUTO_TEST_CASE(early_giving_up_keeps_the_bounded_law_exactly) {
  // attempt_within skips the coins of passes that can only end out of range
  // (bounded operator() uses it). Enumerating every path of one pass: the
  // accepted law must be the exponential mechanism's exact PMF on the range
  // (Lap_Z conditioned on it), with nothing pruned: every path is short.
  // Cases: the Adj-map alpha = 10 within-partition rate 1/260 (U drawn
  // below s (M + 1) < t), s > 1, a centre at either end, inside, and a
  // range wider than t / s (the V loop runs).
  struct within_case {
    vdp::rational rate;
    std::int64_t lo, hi, c;
  };
  for (auto k :
       {within_case{{1, 260}, 0, 3, 0}, within_case{{1, 260}, 0, 3, 2},
        within_case{{1, 25}, 1, 10, 5}, within_case{{16, 25}, 1, 10, 1},
        within_case{{3, 2}, -4, 6, 6}, within_case{{2, 5}, 0, 40, 17},
        within_case{{5, 3}, 0, 0, 0}}) {
    vdp::discrete_laplace lap(k.rate);
    vdp::exponential_mechanism em(k.lo, k.hi, k.rate);
    auto below = static_cast<std::uint64_t>(k.c - k.lo);
    auto above = static_cast<std::uint64_t>(k.hi - k.c);
    auto law = vt::enumerate_attempt<true>(
        [&](auto& g) { return lap.attempt_within(g, below, above); }, 1e-30L);
    long double acc = law.accepted_mass();
    BOOST_TEST(law.pruned < 1e-25L);
    BOOST_TEST(std::fabs(static_cast<double>(acc + law.rejected - 1)) < 1e-15);
    double worst = 0;
    for (auto& [z, p] : law.accepted) {
      BOOST_TEST((k.lo <= k.c + z && k.c + z <= k.hi));
      worst = std::max(worst, static_cast<double>(
                                  std::fabs(p / acc - em.pmf(k.c, k.c + z))));
    }
    BOOST_TEST(law.accepted.size() ==
               static_cast<std::size_t>(k.hi - k.lo + 1));
    BOOST_TEST_MESSAGE("rate " << vdp::to_string(k.rate) << " [" << k.lo << ", "
                               << k.hi << "] centre " << k.c << ": acceptance "
                               << static_cast<double>(acc) << ", max |P - pmf| "
                               << worst);
    BOOST_TEST(worst < 1e-12);
    // A pass accepts at least 1/4 as often as a whole draw lands in range
    // (the retry cap of bounded operator() relies on it).
    vdp::bounded_discrete_laplace b(k.lo, k.hi, k.rate);
    BOOST_TEST(static_cast<double>(acc) >= b.acceptance(k.c) / 4);
  }
}

BOOST_AUTO_TEST_CASE(frequencies_match_the_closed_form) {
  // 10^6 draws per rate against (1-q)/(1+q) q^|z| on [-Z, Z] plus the two
  // tails; 4 rates: alpha = 1e-3 / 4 (Bonferroni). Rates: eps/2 for the
  // paper's eps = 0.08, 1.28, and a wide and a narrow one.
  vcrypto::seeded_random g(vt::dp_seed + 2);
  constexpr std::uint64_t draws = 1000000;
  for (auto rate : {vdp::rational{1, 25}, vdp::rational{16, 25},
                    vdp::rational{1, 500}, vdp::rational{3, 1}}) {
    vdp::discrete_laplace lap(rate);
    auto zmax = static_cast<std::int64_t>(std::ceil(12 / rate.value()));
    std::vector<std::uint64_t> counts(2 * zmax + 3);
    long double sum = 0, sum2 = 0;
    for (std::uint64_t i = 0; i < draws; ++i) {
      auto z = lap(g);
      sum += z;
      sum2 += static_cast<long double>(z) * z;
      auto cell = z < -zmax ? 0 : (z > zmax ? 2 * zmax + 2 : z + zmax + 1);
      ++counts[static_cast<std::size_t>(cell)];
    }
    std::vector<double> probs(counts.size());
    long double inside = 0;
    for (std::int64_t z = -zmax; z <= zmax; ++z)
      inside += probs[z + zmax + 1] = static_cast<double>(lap_pmf(rate, z));
    probs.front() = probs.back() = static_cast<double>((1 - inside) / 2);
    auto fit = vt::chi_square(counts, probs, 2.5e-4);
    vt::require_fit(fit, draws, "rate " + vdp::to_string(rate));
    // Mean 0 and variance 2q/(1-q)^2 within 4 standard errors; the
    // variance's standard error from the fourth moment (summed exactly).
    long double var = lap.variance();
    long double m4 = 0;
    for (std::int64_t z = -40 * zmax; z <= 40 * zmax; ++z)
      m4 += lap_pmf(rate, z) * static_cast<long double>(z) * z * z * z;
    long double mean = sum / draws;
    long double sample_var = sum2 / draws - mean * mean;
    BOOST_TEST(std::fabs(static_cast<double>(mean)) <
               4 * std::sqrt(static_cast<double>(var) / draws));
    BOOST_TEST(std::fabs(static_cast<double>(sample_var - var)) <
               4 * std::sqrt(static_cast<double>((m4 - var * var) / draws)));
  }
}

BOOST_AUTO_TEST_CASE(acceptance_matches_the_spec_numbers) {
  // spec opboost §4.0 (c), to the spec's digits (half a unit of the last).
  auto rate = vdp::rational{1, 25}; // eps = 0.08, lambda = 2/eps
  auto near = [](double x, double target, double half_unit) {
    return std::fabs(x - target) <= half_unit;
  };
  BOOST_TEST(near(vdp::bounded_discrete_laplace(1, 10, rate).acceptance(5),
                  0.1813, 5e-5));
  BOOST_TEST(near(vdp::bounded_discrete_laplace(1, 10, rate).acceptance(1),
                  0.1681, 5e-5));
  // Local-map theta = 4: a centre next to the edge.
  BOOST_TEST(near(vdp::bounded_discrete_laplace(0, 3, rate).acceptance(1),
                  0.0769, 5e-5));
  // Adj-map alpha = 10, theta = 4, |D| = 10: eps_ner = 0.08/10.4, centre at
  // an edge.
  auto ner_half = vdp::rational{1, 260}; // (0.08 / 10.4) / 2
  BOOST_TEST(near(vdp::bounded_discrete_laplace(0, 3, ner_half).acceptance(0),
                  0.00765, 5e-6));
}

BOOST_AUTO_TEST_CASE(empirical_acceptance_matches_the_closed_form) {
  // Count resampling rounds: the acceptance rate within 4 standard errors.
  vcrypto::seeded_random g(vt::dp_seed + 3);
  vdp::bounded_discrete_laplace b(1, 10, vdp::rational{1, 25});
  for (std::int64_t c : {1, 5}) {
    std::uint64_t attempts = 0, accepted = 0;
    while (attempts < 400000) {
      ++attempts;
      accepted += b.attempt(g, c) ? 1 : 0;
    }
    double p = b.acceptance(c);
    double se = std::sqrt(p * (1 - p) / static_cast<double>(attempts));
    BOOST_TEST(std::fabs(static_cast<double>(accepted) / attempts - p) <
               4 * se);
  }
}

BOOST_AUTO_TEST_CASE(bounded_law_is_the_exponential_mechanism) {
  // The resampled law equals the exponential mechanism's exact PMF
  // (spec §4.0 key fact): chi-square of 10^6 draws against it, 3 cases
  // (alpha = 1e-3 / 3), including a centre outside the range.
  vcrypto::seeded_random g(vt::dp_seed + 4);
  constexpr std::uint64_t draws = 1000000;
  struct bounded_case {
    std::int64_t lo, hi, c;
    vdp::rational rate;
  };
  for (auto k :
       {bounded_case{1, 10, 5, {1, 25}}, bounded_case{1, 10, 1, {16, 25}},
        bounded_case{-50, 49, 70, {1, 20}}}) {
    vdp::bounded_discrete_laplace b(k.lo, k.hi, k.rate);
    vdp::exponential_mechanism em(k.lo, k.hi, k.rate);
    vt::require_draws_fit(
        [&] { return b(g, k.c); }, k.lo, k.hi,
        [&](std::int64_t o) { return em.pmf(k.c, o); }, draws, 1e-3 / 3,
        "[" + std::to_string(k.lo) + ", " + std::to_string(k.hi) + "] centre " +
            std::to_string(k.c));
  }
}

BOOST_AUTO_TEST_CASE(lemma_4_10_as_printed_does_not_normalize) {
  // spec §4.4 / §9.1: the paper's tau makes the probabilities sum to 1.462
  // for lambda = 1 on [-2, 2]; the fixed law sums to 1.
  BOOST_TEST(vdp::paper_lemma_4_10_total(1, -2, 2) == 1.462,
             boost::test_tools::tolerance(1e-3));
  vdp::exponential_mechanism em(-2, 2, vdp::rational{1, 1});
  double s = 0;
  for (int o = -2; o <= 2; ++o)
    s += em.pmf(0, o);
  BOOST_TEST(s == 1.0, boost::test_tools::tolerance(1e-14));
}

BOOST_AUTO_TEST_CASE(costs_follow_theorems_4_9_and_4_11) {
  auto rate = vdp::rational{1, 25};
  BOOST_TEST(vdp::discrete_laplace(rate).cost().epsilon == 0.04);
  BOOST_TEST(vdp::bounded_discrete_laplace(1, 10, rate).cost().epsilon == 0.08);
  BOOST_CHECK_THROW(vdp::discrete_laplace(vdp::rational{0, 1}),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
