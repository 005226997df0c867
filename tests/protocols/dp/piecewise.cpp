// The Piecewise mechanism, the LDP baseline (spec opboost §4.6).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/piecewise.hpp"
#include "tests/protocols/dp/support.hpp"

namespace vdp = veil::protocols::dp;
namespace vcrypto = veil::protocols::crypto;
namespace vt = veil::test;

BOOST_AUTO_TEST_SUITE(dp)
BOOST_AUTO_TEST_SUITE(piecewise)

BOOST_AUTO_TEST_CASE(density_is_a_law_with_ratio_e_to_the_epsilon) {
  for (double eps : {0.08, 1.28, 5.12}) {
    vdp::piecewise pm(eps);
    BOOST_TEST(pm.density_high() / pm.density_low() == std::exp(eps),
               boost::test_tools::tolerance(1e-12));
    for (double t : {-1.0, -0.2, 0.0, 0.7, 1.0}) {
      double c = pm.bound();
      BOOST_TEST(pm.interval_probability(t, -c, c) == 1.0,
                 boost::test_tools::tolerance(1e-12));
      BOOST_TEST(pm.left(t) >= -c - 1e-9);
      BOOST_TEST(pm.right(t) <= c + 1e-9);
    }
  }
}

BOOST_AUTO_TEST_CASE(outputs_follow_the_density) {
  // 400k draws in 200 equal bins of [-C, C] against the exact interval
  // probabilities; 6 cases (alpha = 1e-3 / 6). The mean is t (unbiased),
  // within 4 standard errors.
  vcrypto::seeded_random g(vt::dp_seed + 6);
  constexpr std::uint64_t draws = 400000;
  constexpr int bins = 200;
  for (double eps : {0.5, 2.56})
    for (double t : {-1.0, 0.3, 1.0}) {
      vdp::piecewise pm(eps);
      double c = pm.bound(), width = 2 * c / bins;
      std::vector<std::uint64_t> counts(bins);
      double sum = 0, sum2 = 0;
      std::uint64_t outside = 0;
      for (std::uint64_t i = 0; i < draws; ++i) {
        double y = pm(g, t);
        if (!(y >= -c && y <= c)) {
          ++outside;
          continue;
        }
        sum += y;
        sum2 += y * y;
        auto b = std::min(bins - 1, static_cast<int>((y + c) / width));
        ++counts[static_cast<std::size_t>(b)];
      }
      BOOST_TEST(outside == 0u);
      std::vector<double> probs;
      for (int b = 0; b < bins; ++b)
        probs.push_back(
            pm.interval_probability(t, -c + b * width, -c + (b + 1) * width));
      vt::require_fit(vt::chi_square(counts, probs, 1e-3 / 6), draws,
                      "eps " + std::to_string(eps) + " t " + std::to_string(t));
      double mean = sum / draws, var = sum2 / draws - mean * mean;
      BOOST_TEST(std::fabs(mean - t) < 4 * std::sqrt(var / draws));
    }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
