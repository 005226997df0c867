// Exact integer-only coins: uniform integers, Bernoulli(n/d) and
// Bernoulli(exp(-n/d)) (CKS 2020 Alg. 1; spec opboost §8.3).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/bernoulli.hpp"
#include "tests/protocols/dp/support.hpp"

namespace vdp = veil::protocols::dp;
namespace vcrypto = veil::protocols::crypto;
namespace vt = veil::test;

BOOST_AUTO_TEST_SUITE(dp)
BOOST_AUTO_TEST_SUITE(bernoulli)

BOOST_AUTO_TEST_CASE(uniform_below_is_uniform) {
  // 7 and 3 * 2^62 + 1 do not divide 2^64: a modulo would be biased. For the
  // large n, test which third of the range the draws land in.
  vcrypto::seeded_random g(vt::dp_seed);
  constexpr std::uint64_t draws = 700000;
  std::vector<std::uint64_t> counts(7);
  for (std::uint64_t i = 0; i < draws; ++i)
    ++counts[vdp::uniform_below(g, 7)];
  std::vector<double> probs(7, 1.0 / 7);
  // 2 cases in this test: alpha = 1e-3 / 2 (Bonferroni).
  vt::require_fit(vt::chi_square(counts, probs, 5e-4), draws, "n = 7");
  const std::uint64_t big = (std::uint64_t{3} << 62) + 1;
  std::vector<std::uint64_t> thirds(3);
  std::uint64_t outside = 0;
  for (std::uint64_t i = 0; i < draws; ++i) {
    auto x = vdp::uniform_below(g, big);
    if (x >= big) {
      ++outside;
      continue;
    }
    ++thirds[x / (std::uint64_t{1} << 62)];
  }
  BOOST_TEST(outside == 0u);
  // Cells [0, 2^62), [2^62, 2^63), [2^63, 3 * 2^62]: the last has one value
  // more, negligible.
  std::vector<double> p3(3, 1.0 / 3);
  vt::require_fit(vt::chi_square(thirds, p3, 5e-4), draws, "n = 3*2^62+1");
}

BOOST_AUTO_TEST_CASE(bernoulli_exp_is_exact_by_enumeration) {
  // Every path of the algorithm with its exact probability (paths below
  // 1e-21 pruned and accounted): P(1) must be exp(-gamma) up to the pruned
  // mass and long double rounding.
  struct gamma_case {
    std::uint64_t num, den;
  };
  for (auto c : {gamma_case{0, 1}, gamma_case{1, 3}, gamma_case{1, 1},
                 gamma_case{5, 2}, gamma_case{7, 3}, gamma_case{1, 25}}) {
    auto law = vt::enumerate_attempt<false>(
        [&](auto& g) -> std::optional<std::int64_t> {
          return vdp::bernoulli_exp(g, c.num, c.den) ? 1 : 0;
        },
        1e-21L);
    long double p1 = law.accepted.count(1) ? law.accepted.at(1) : 0;
    long double total = law.accepted_mass() + law.rejected + law.pruned;
    long double target = std::exp(-static_cast<long double>(c.num) / c.den);
    BOOST_TEST_MESSAGE("gamma " << c.num << "/" << c.den << ": P(1) = "
                                << static_cast<double>(p1) << ", pruned "
                                << static_cast<double>(law.pruned));
    BOOST_TEST(std::fabs(static_cast<double>(total - 1)) < 1e-15);
    BOOST_TEST(law.pruned < 1e-15L);
    BOOST_TEST(std::fabs(static_cast<double>(p1 - target)) <
               static_cast<double>(law.pruned) + 1e-16);
  }
}

BOOST_AUTO_TEST_CASE(bernoulli_exp_frequencies_match) {
  // With the real engine: the share of ones for gamma = 0.04 (the paper's
  // eps/2 at eps = 0.08), 1 and 2.5, within 4 standard errors.
  vcrypto::seeded_random g(vt::dp_seed + 1);
  constexpr int draws = 400000;
  for (auto [num, den] :
       {std::pair<std::uint64_t, std::uint64_t>{1, 25}, {1, 1}, {5, 2}}) {
    int ones = 0;
    for (int i = 0; i < draws; ++i)
      ones += vdp::bernoulli_exp(g, num, den) ? 1 : 0;
    double p = std::exp(-static_cast<double>(num) / static_cast<double>(den));
    double se = std::sqrt(p * (1 - p) / draws);
    BOOST_TEST(std::fabs(static_cast<double>(ones) / draws - p) < 4 * se);
  }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
