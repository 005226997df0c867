// The exact discrete Gaussian sampler (CKS 2020 Alg. 3 with s^2 = t m) and
// its 128-bit coins.
#include <boost/math/distributions/normal.hpp>
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/discrete_gaussian.hpp"
#include "tests/protocols/dp/support.hpp"

namespace vdp = veil::protocols::dp;
namespace vcrypto = veil::protocols::crypto;
namespace vt = veil::test;

using vdp::uint128;

namespace {

struct gauss_case {
  std::uint64_t t, m, max_abs;
};

std::string name(const gauss_case& k) {
  return "t " + std::to_string(k.t) + ", m " + std::to_string(k.m) +
         ", max_abs " + std::to_string(k.max_abs);
}

/// The truncated law by direct summation in long double, independent of
/// discrete_gaussian::pmf: entry y + max_abs is P(Y = y).
std::vector<long double> exact_law(const gauss_case& k) {
  const long double var = static_cast<long double>(k.t) * k.m;
  std::vector<long double> p(2 * k.max_abs + 1);
  long double z = 0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    auto y = static_cast<long double>(i) - static_cast<long double>(k.max_abs);
    z += p[i] = std::exp(-y * y / (2 * var));
  }
  for (auto& q : p)
    q /= z;
  return p;
}

/// max_abs = ceil(40 s).
gauss_case untruncated(std::uint64_t t, std::uint64_t m) {
  auto s = std::sqrt(static_cast<long double>(t) * m);
  return {t, m, static_cast<std::uint64_t>(std::ceil(40 * s))};
}

constexpr uint128 one = 1;

} // namespace

BOOST_AUTO_TEST_SUITE(dp)
BOOST_AUTO_TEST_SUITE(discrete_gaussian)

BOOST_AUTO_TEST_CASE(one_attempt_is_exact_by_enumeration) {
  // Given exact Bernoulli(exp(-x)) coins (one weighted choice each; the
  // coins themselves are enumerated below), every path of one attempt with
  // its exact probability. Truncation bounds V, so every path is finite and
  // nothing is pruned: the accepted law must be exp(-y^2 / (2 t m)) on
  // [-max_abs, max_abs] exactly (up to long double rounding), and the
  // accepted mass acceptance(). Cases: t = s, t < s (1, 3) and t > s (5, 1),
  // t far below s (7, 50), a truncation inside the bulk (4, 3, 3) and
  // max_abs 0.
  for (auto k : {gauss_case{1, 1, 6}, gauss_case{2, 1, 6}, gauss_case{3, 2, 9},
                 gauss_case{1, 3, 7}, gauss_case{5, 1, 4}, gauss_case{4, 3, 3},
                 gauss_case{7, 50, 30}, gauss_case{3, 2, 0}}) {
    vdp::discrete_gaussian dg(k.t, k.m, k.max_abs);
    auto law = vt::enumerate_attempt<true>(
        [&](auto& g) { return dg.attempt(g); }, 0.0L);
    long double acc = law.accepted_mass();
    BOOST_TEST(static_cast<double>(law.pruned) == 0.0);
    BOOST_TEST(std::fabs(static_cast<double>(acc + law.rejected - 1)) < 1e-15);
    BOOST_TEST(law.accepted.size() == 2 * k.max_abs + 1);
    auto exact = exact_law(k);
    double worst = 0;
    for (auto& [y, p] : law.accepted) {
      BOOST_TEST(std::llabs(y) <= static_cast<long long>(k.max_abs));
      auto i = static_cast<std::size_t>(y + static_cast<long long>(k.max_abs));
      worst =
          std::max(worst, static_cast<double>(std::fabs(p / acc - exact[i])));
    }
    BOOST_TEST_MESSAGE(name(k) << ": acceptance " << static_cast<double>(acc)
                               << ", max |P - law| " << worst);
    BOOST_TEST(worst < 1e-15);
    BOOST_TEST(static_cast<double>(acc) == dg.acceptance(),
               boost::test_tools::tolerance(1e-14));
  }
}

BOOST_AUTO_TEST_CASE(every_coin_of_an_attempt_by_enumeration) {
  // The same down to the coins of CKS Alg. 1 (Bernoulli(n/d) choices only):
  // its loops are unbounded, so paths below 1e-16 are pruned and the
  // accepted law must match up to the pruned mass.
  for (auto k : {gauss_case{1, 1, 3}, gauss_case{2, 1, 2}}) {
    vdp::discrete_gaussian dg(k.t, k.m, k.max_abs);
    auto law = vt::enumerate_attempt<false>(
        [&](auto& g) { return dg.attempt(g); }, 1e-16L);
    long double acc = law.accepted_mass();
    BOOST_TEST(std::fabs(static_cast<double>(acc + law.rejected + law.pruned -
                                             1)) < 1e-15);
    auto exact = exact_law(k);
    double worst = 0;
    for (auto& [y, p] : law.accepted) {
      auto i = static_cast<std::size_t>(y + static_cast<long long>(k.max_abs));
      worst =
          std::max(worst, static_cast<double>(std::fabs(p / acc - exact[i])));
    }
    BOOST_TEST_MESSAGE(name(k) << ": acceptance " << static_cast<double>(acc)
                               << ", pruned " << static_cast<double>(law.pruned)
                               << ", max |P - law| " << worst);
    BOOST_TEST(law.pruned < 1e-12L);
    BOOST_TEST(worst < static_cast<double>(law.pruned / acc) + 1e-15);
  }
}

BOOST_AUTO_TEST_CASE(frequencies_match_the_exact_law) {
  // 400,000 draws per case against the exact PMF (chi-square, pooled
  // cells); 7 cases: alpha = 1e-3 / 7 (Bonferroni). Untruncated cases stop
  // at 40 s; (30, 29) is t = floor(s) + 1 at s = 29.5, (7, 50) has t far
  // below s = 18.7, and (4, 3) with max_abs 3 checks the truncated law.
  vcrypto::seeded_random g(vt::dp_seed + 20);
  constexpr std::uint64_t draws = 400000;
  for (auto k : {untruncated(1, 1), untruncated(2, 1), untruncated(3, 2),
                 untruncated(4, 3), untruncated(30, 29), untruncated(7, 50),
                 gauss_case{4, 3, 3}}) {
    vdp::discrete_gaussian dg(k.t, k.m, k.max_abs);
    auto exact = exact_law(k);
    auto lo = -static_cast<std::int64_t>(k.max_abs);
    vt::require_draws_fit([&] { return dg(g); }, lo, -lo,
                          [&](std::int64_t y) {
                            return static_cast<double>(
                                exact[static_cast<std::size_t>(y - lo)]);
                          },
                          draws, 1e-3 / 7, name(k));
  }
}

BOOST_AUTO_TEST_CASE(passes_accept_at_the_predicted_rate) {
  // The share of attempts that return a value is acceptance() (its closed
  // form is derived in the header), within 4 standard errors, including
  // FEVERLESS's scale.
  vcrypto::seeded_random g(vt::dp_seed + 21);
  constexpr int passes = 200000;
  for (auto dg :
       {vdp::discrete_gaussian(1, 1, 40), vdp::discrete_gaussian(7, 50, 748),
        vdp::discrete_gaussian(4, 3, 3),
        vdp::discrete_gaussian::at_least(0x1p33 * 1.99)}) {
    int accepted = 0;
    for (int i = 0; i < passes; ++i)
      accepted += dg.attempt(g) ? 1 : 0;
    double p = dg.acceptance();
    double se = std::sqrt(p * (1 - p) / passes);
    double rate = static_cast<double>(accepted) / passes;
    BOOST_TEST_MESSAGE("t " << dg.t() << ", m " << dg.m() << ": acceptance "
                            << rate << ", predicted " << p);
    BOOST_TEST(std::fabs(rate - p) < 4 * se);
  }
}

BOOST_AUTO_TEST_CASE(feverless_scale_matches_the_normal_law) {
  // A FEVERLESS scale: sensitivity 2, sigma 1.99, 32 fractional bits
  // (at_least(1.99 2^33), s ~ 1.7e10). 400,000 draws binned into 20 cells of
  // normal mass 1/20 each (edges s Phi^-1(k / 20)). The discrete law's cell
  // masses equal the normal ones up to about one term, 1 / (s sqrt(2 pi)) ~
  // 2e-11 (Euler–Maclaurin at each edge; by Poisson summation the total mass is
  // s sqrt(2 pi) up to e^(-2 pi^2 s^2)), far below what 400,000 draws resolve.
  // Also: no draw beyond max_abs, and mean 0 and variance s^2 within 4 standard
  // errors.
  const double sigma = 0x1p33 * 1.99;
  auto dg = vdp::discrete_gaussian::at_least(sigma);
  BOOST_TEST(dg.t() == static_cast<std::uint64_t>(std::ceil(sigma)));
  BOOST_TEST(dg.variance() >= static_cast<long double>(sigma) * sigma);
  const long double s = dg.stddev();
  boost::math::normal normal;
  constexpr int cells = 20;
  std::vector<long double> edges;
  for (int k = 1; k < cells; ++k)
    edges.push_back(s * boost::math::quantile(normal, k / double(cells)));
  vcrypto::seeded_random g(vt::dp_seed + 22);
  constexpr std::uint64_t draws = 400000;
  std::vector<std::uint64_t> counts(cells);
  std::uint64_t beyond = 0;
  long double sum = 0, sum2 = 0;
  for (std::uint64_t i = 0; i < draws; ++i) {
    std::int64_t y = dg(g);
    if (static_cast<std::uint64_t>(std::llabs(y)) > dg.max_abs())
      ++beyond;
    auto x = static_cast<long double>(y);
    sum += x;
    sum2 += x * x;
    auto cell = std::upper_bound(edges.begin(), edges.end(), x) - edges.begin();
    ++counts[static_cast<std::size_t>(cell)];
  }
  BOOST_TEST(beyond == 0u);
  std::vector<double> probs(cells, 1.0 / cells);
  vt::require_fit(vt::chi_square(counts, probs, 1e-3), draws,
                  "s = " + std::to_string(static_cast<double>(s)));
  long double mean = sum / draws;
  long double var = sum2 / draws - mean * mean;
  double mean_z = static_cast<double>(mean / (s / std::sqrt(draws * 1.0L)));
  double var_z =
      static_cast<double>((var / (s * s) - 1) / std::sqrt(2.0L / draws));
  BOOST_TEST_MESSAGE("mean / se " << mean_z << ", (var - s^2) / se " << var_z);
  BOOST_TEST(std::fabs(mean_z) < 4);
  BOOST_TEST(std::fabs(var_z) < 4);
}

BOOST_AUTO_TEST_CASE(wide_coins_are_exact_by_enumeration) {
  // Bernoulli(exp(-num/den)) with parts above 2^64, every path given exact
  // Bernoulli(n/d) coins (paths below the threshold pruned and accounted).
  // (2^125, 3 2^125) and (3 2^125 - 1, 3 2^125): den k overflows 128 bits
  // from k = 3, so the coin is split into Bernoulli(1/k) AND
  // Bernoulli(num/den). (2^127, 2^64): gamma = 2^63, a 128-bit loop count.
  struct wide_case {
    uint128 num, den;
    long double prune;
  };
  for (auto c : {wide_case{3 * (one << 100), one << 102, 1e-21L},
                 wide_case{one << 125, 3 * (one << 125), 1e-21L},
                 wide_case{3 * (one << 125) - 1, 3 * (one << 125), 1e-21L},
                 wide_case{7 * (one << 100) + 5, 3 * (one << 100), 1e-21L},
                 wide_case{one << 70, (one << 68) + 1, 1e-21L},
                 wide_case{0, one << 100, 1e-21L},
                 wide_case{one << 127, one << 64, 1e-12L}}) {
    auto law = vt::enumerate_attempt<false>(
        [&](auto& g) -> std::optional<std::int64_t> {
          return vdp::bernoulli_exp_u128(g, c.num, c.den) ? 1 : 0;
        },
        c.prune);
    long double p1 = law.accepted.count(1) ? law.accepted.at(1) : 0;
    long double total = law.accepted_mass() + law.rejected + law.pruned;
    long double gamma =
        static_cast<long double>(c.num) / static_cast<long double>(c.den);
    long double target = std::exp(-gamma);
    BOOST_TEST_MESSAGE("gamma " << static_cast<double>(gamma) << ": P(1) = "
                                << static_cast<double>(p1) << ", target "
                                << static_cast<double>(target) << ", pruned "
                                << static_cast<double>(law.pruned));
    BOOST_TEST(std::fabs(static_cast<double>(total - 1)) < 1e-15);
    BOOST_TEST(law.pruned < c.prune * 1e6L);
    BOOST_TEST(std::fabs(static_cast<double>(p1 - target)) <
               static_cast<double>(law.pruned) + 1e-16);
  }
}

BOOST_AUTO_TEST_CASE(wide_coins_match_their_frequencies) {
  // With the real engine, so that uniform_below_u128 and the 64-bit
  // shortcuts run. Uniforms below 3 2^100 + 1 and 3 2^126 + 1 (the high
  // word masked to 38 and to 64 bits) land in each third equally often
  // (chi-square, 2 cases: alpha 5e-4; the last third has one value more,
  // negligible); coins within 4 standard errors.
  vcrypto::seeded_random g(vt::dp_seed + 23);
  constexpr std::uint64_t draws = 300000;
  for (int shift : {100, 126}) {
    const uint128 third = one << shift;
    const uint128 n = 3 * third + 1;
    std::vector<std::uint64_t> counts(3);
    std::uint64_t outside = 0;
    for (std::uint64_t i = 0; i < draws; ++i) {
      uint128 x = vdp::uniform_below_u128(g, n);
      if (x >= n) {
        ++outside;
        continue;
      }
      ++counts[std::min<std::size_t>(2, static_cast<std::size_t>(x / third))];
    }
    BOOST_TEST(outside == 0u);
    vt::require_fit(
        vt::chi_square(counts, std::vector<double>(3, 1.0 / 3), 5e-4), draws,
        "n = 3 2^" + std::to_string(shift) + " + 1");
  }
  // At the 64-bit boundary: below 2^64 + 1, only 2^64 itself has a high
  // word, and it is (almost) never drawn.
  for (int i = 0; i < 1000; ++i)
    BOOST_TEST(static_cast<bool>(vdp::uniform_below_u128(g, (one << 64) + 1) <=
                                 (one << 64)));
  auto share = [&](auto coin) {
    int ones = 0;
    for (std::uint64_t i = 0; i < draws; ++i)
      ones += coin() ? 1 : 0;
    return static_cast<double>(ones) / draws;
  };
  auto near = [&](double rate, double p) {
    BOOST_TEST_MESSAGE("rate " << rate << ", p " << p);
    return std::fabs(rate - p) < 4 * std::sqrt(p * (1 - p) / draws);
  };
  BOOST_TEST(near(share([&] {
                    return vdp::bernoulli_u128(g, (one << 100) + 1,
                                               3 * (one << 100));
                  }),
                  1.0 / 3));
  // High words that decide nothing alone: num's (2 here) and den - 1's
  // (2, then 1), where the low word is drawn.
  BOOST_TEST(near(share([&] {
                    return vdp::bernoulli_u128(g, 5 * (one << 63),
                                               3 * (one << 64));
                  }),
                  5.0 / 6));
  BOOST_TEST(near(
      share([&] { return vdp::bernoulli_u128(g, one << 63, 3 * (one << 63)); }),
      1.0 / 3));
  // Exactly 2^64: the high word of den - 1 is 0 (it used to shift by 64).
  BOOST_TEST(near(
      share([&] { return vdp::bernoulli_u128(g, 3 * (one << 62), one << 64); }),
      0.75));
  BOOST_TEST(near(share([&] {
                    return vdp::uniform_below_u128(g, one << 64) < (one << 62);
                  }),
                  0.25));
  BOOST_TEST(near(share([&] {
                    return vdp::bernoulli_exp_u128(g, 3 * (one << 100),
                                                   one << 102);
                  }),
                  std::exp(-0.75)));
  BOOST_TEST(near(share([&] {
                    return vdp::bernoulli_exp_u128(g, one << 125,
                                                   3 * (one << 125));
                  }),
                  std::exp(-1.0 / 3)));
  BOOST_TEST(near(share([&] {
                    return vdp::bernoulli_exp_u128(g, 7 * (one << 100),
                                                   3 * (one << 100));
                  }),
                  std::exp(-7.0 / 3)));
}

BOOST_AUTO_TEST_CASE(pmf_is_normalized_on_each_branch) {
  // pmf() against direct summation where the normalizer is summed (max_abs
  // <= 10^6), and where it comes from Poisson summation and Euler–Maclaurin
  // tails (larger max_abs).
  auto sum_pmf = [](const vdp::discrete_gaussian& dg, std::int64_t reach) {
    long double s = 0;
    for (std::int64_t y = -reach; y <= reach; ++y)
      s += dg.pmf(y);
    return static_cast<double>(s);
  };
  // Direct: the truncated (4, 3, 3), and pmf = exact_law.
  for (auto k : {gauss_case{4, 3, 3}, gauss_case{7, 50, 748}}) {
    vdp::discrete_gaussian dg(k.t, k.m, k.max_abs);
    auto exact = exact_law(k);
    auto reach = static_cast<std::int64_t>(k.max_abs);
    BOOST_TEST(sum_pmf(dg, reach + 5) == 1.0,
               boost::test_tools::tolerance(1e-14));
    for (std::int64_t y = -reach; y <= reach; ++y)
      BOOST_TEST(dg.pmf(y) == static_cast<double>(
                                  exact[static_cast<std::size_t>(y + reach)]),
                 boost::test_tools::tolerance(1e-14));
    BOOST_TEST(dg.pmf(reach + 1) == 0.0);
    BOOST_TEST(dg.pmf(-reach - 1) == 0.0);
  }
  // Poisson summation at s = 1, the smallest scale: without its
  // 2 exp(-2 pi^2) ~ 5e-9 term the sum would be off by that much.
  vdp::discrete_gaussian unit(1, 1, 2000000);
  BOOST_TEST(sum_pmf(unit, 60) == 1.0, boost::test_tools::tolerance(1e-14));
  // The law's variance is below s^2 by ~8 pi^2 s^2 exp(-2 pi^2 s^2) (the
  // header's claim) at s = 1.
  long double var = 0;
  for (std::int64_t y = -60; y <= 60; ++y)
    var += unit.pmf(y) * static_cast<long double>(y * y);
  const long double pi = 3.141592653589793238462643383279502884L;
  BOOST_TEST(static_cast<double>(1 - var) ==
                 static_cast<double>(8 * pi * pi * std::exp(-2 * pi * pi)),
             boost::test_tools::tolerance(1e-3));
  // Across the switch at max_abs = 10^6, tails negligible (s = 5e4, 20 s):
  // the same normalizer.
  vdp::discrete_gaussian d_below(50000, 50000, 1000000);
  vdp::discrete_gaussian d_above(50000, 50000, 1000001);
  BOOST_TEST(d_below.pmf(0) == d_above.pmf(0),
             boost::test_tools::tolerance(1e-14));
  BOOST_TEST(d_below.pmf(123456) == d_above.pmf(123456),
             boost::test_tools::tolerance(1e-14));
  // Heavy tails (s = 10^6, max_abs = 3 s): Z(3 s) = Z(s) + 2 sum of the
  // terms in between, the first by direct summation, the second by the
  // Euler–Maclaurin tail.
  vdp::discrete_gaussian d_direct(1000000, 1000000, 1000000);
  vdp::discrete_gaussian d_tails(1000000, 1000000, 3000000);
  long double between = 0;
  for (std::uint64_t y = 3000000; y > 1000000; --y) {
    auto x = static_cast<long double>(y);
    between += std::exp(-x * x / 2e12L);
  }
  long double z_direct = 1 / static_cast<long double>(d_direct.pmf(0));
  long double z_tails = 1 / static_cast<long double>(d_tails.pmf(0));
  BOOST_TEST(static_cast<double>(z_tails) ==
                 static_cast<double>(z_direct + 2 * between),
             boost::test_tools::tolerance(1e-13));
}

BOOST_AUTO_TEST_CASE(at_least_rounds_up) {
  // t m >= stddev^2 exactly (checked in long double: rounding is monotone,
  // so a product at least stddev^2 is not rounded below it) and
  // t m < (stddev + 1)^2 + stddev, over 10^-3 ... 10^16, the FEVERLESS
  // scales and a few exact cases.
  std::vector<double> sds;
  for (int k = -21; k <= 112; ++k)
    sds.push_back(std::pow(10.0, k / 7.0));
  for (double sigma : {0.25, 1.0, 1.99, 100.0})
    sds.push_back(sigma * 0x1p32);
  sds.push_back(std::nextafter(0x1p40, 0.0));
  for (double sd : sds) {
    auto dg = vdp::discrete_gaussian::at_least(sd);
    long double v = sd;
    long double tm = static_cast<long double>(dg.t()) * dg.m();
    BOOST_TEST(tm >= v * v, "stddev " << sd);
    BOOST_TEST(tm < (v + 1) * (v + 1) + v, "stddev " << sd);
    BOOST_TEST(dg.t() == std::max<std::uint64_t>(
                             1, static_cast<std::uint64_t>(std::ceil(sd))));
    BOOST_TEST(static_cast<long double>(dg.max_abs()) >= 40 * dg.stddev());
    BOOST_TEST(static_cast<long double>(dg.max_abs()) < 40 * dg.stddev() + 1);
  }
  // stddev = t - 1/2: stddev^2 = t (t - 1) + 1/4, so m must be t, not
  // t - 1. From t ~ 2^32 on, long double rounds stddev^2 to t (t - 1) and
  // would accept m = t - 1 (t m then 1/4 short): at_least rounds exactly.
  for (double t : {4.0, 1000.0, 0x1p32 + 1, 0x1p40 + 1, 0x1p50 + 1}) {
    auto dg = vdp::discrete_gaussian::at_least(t - 0.5);
    BOOST_TEST(dg.t() == static_cast<std::uint64_t>(t));
    BOOST_TEST(dg.m() == static_cast<std::uint64_t>(t));
  }
  auto tiny = vdp::discrete_gaussian::at_least(1e-300);
  BOOST_TEST(tiny.t() == 1u);
  BOOST_TEST(tiny.m() == 1u);
  auto exact = vdp::discrete_gaussian::at_least(4);
  BOOST_TEST(exact.t() == 4u);
  BOOST_TEST(exact.m() == 4u);
  auto wider = vdp::discrete_gaussian::at_least(4, 10);
  BOOST_TEST(wider.max_abs() == 40u);
}

BOOST_AUTO_TEST_CASE(arguments_are_checked) {
  vcrypto::seeded_random g(vt::dp_seed + 24);
  BOOST_CHECK_THROW(vdp::uniform_below_u128(g, 0), std::invalid_argument);
  BOOST_CHECK_THROW(vdp::bernoulli_u128(g, 1, 0), std::invalid_argument);
  BOOST_CHECK_THROW(vdp::bernoulli_exp_u128(g, 1, 0), std::invalid_argument);
  BOOST_TEST(vdp::bernoulli_u128(g, one << 100, one << 100));
  BOOST_TEST(!vdp::bernoulli_u128(g, 0, one << 100));
  BOOST_TEST(vdp::bernoulli_exp_u128(g, 0, one << 100));
  // A gamma of 2^127: exp(-gamma) = 0 in every practical sense, and the
  // 128-bit loop count does not overflow.
  BOOST_TEST(!vdp::bernoulli_exp_u128(g, ~uint128{0}, 2));

  using dg = vdp::discrete_gaussian;
  const std::uint64_t big = dg::max_part, reach = dg::max_reach;
  BOOST_CHECK_NO_THROW(dg(big, big, reach));
  BOOST_CHECK_NO_THROW(dg(1, 1, 0));
  BOOST_CHECK_THROW(dg(0, 1, 10), std::invalid_argument);
  BOOST_CHECK_THROW(dg(1, 0, 10), std::invalid_argument);
  BOOST_CHECK_THROW(dg(big + 1, 1, 10), std::invalid_argument);
  BOOST_CHECK_THROW(dg(1, big + 1, 10), std::invalid_argument);
  BOOST_CHECK_THROW(dg(1, 1, reach + 1), std::invalid_argument);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (double bad : {0.0, -0.0, -1.0, nan, inf, -inf, 0x1p57 + 0x1p5, 1e30})
    BOOST_CHECK_THROW(dg::at_least(bad), std::invalid_argument);
  // 40 s must stay <= 2^62: s up to about 2^56.7.
  BOOST_CHECK_NO_THROW(dg::at_least(0x1p56));
  BOOST_CHECK_THROW(dg::at_least(0x1p57), std::invalid_argument);
  BOOST_CHECK_NO_THROW(dg::at_least(0x1p57, 30));
  for (double bad : {0.0, -1.0, nan, inf})
    BOOST_CHECK_THROW(dg::at_least(1, bad), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
