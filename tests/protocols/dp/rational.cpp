// Exact rationals behind the integer-only samplers.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "protocols/dp/rational.hpp"

namespace vdp = veil::protocols::dp;

BOOST_AUTO_TEST_SUITE(dp)
BOOST_AUTO_TEST_SUITE(rational)

BOOST_AUTO_TEST_CASE(decimals_become_the_rationals_they_denote) {
  // spec opboost §8.3: eps = 0.08 gives eps/2 = 1/25, 1.28 gives 16/25.
  BOOST_TEST(vdp::to_string(vdp::rational::from_double(0.08)) == "2/25");
  BOOST_TEST(vdp::to_string(vdp::rational::from_double(1.28)) == "32/25");
  BOOST_TEST(vdp::to_string(vdp::rational::from_double(0.1)) == "1/10");
  BOOST_TEST(vdp::to_string(vdp::rational::from_double(5.12)) == "128/25");
  BOOST_TEST(vdp::to_string(vdp::rational::from_double(3)) == "3");
  BOOST_TEST(vdp::to_string(vdp::rational::from_double(0.01)) == "1/100");
}

BOOST_AUTO_TEST_CASE(arithmetic_is_exact_and_reduced) {
  vdp::rational eps{2, 25}, alpha{2, 5};
  auto ratio = vdp::rational{4, 10};
  // eps / (alpha + theta/|D|) with theta = 4, |D| = 10: (2/25) / (4/5).
  auto ner = eps / (alpha + ratio);
  BOOST_TEST(vdp::to_string(ner) == "1/10");
  BOOST_TEST(vdp::to_string(ner * 4) == "2/5");
  BOOST_TEST((vdp::rational{1, 3} < vdp::rational{2, 5}));
  BOOST_TEST(!(vdp::rational{2, 6} < vdp::rational{1, 3}));
}

BOOST_AUTO_TEST_CASE(oversized_parts_round_down) {
  // x = 1/3 - 1/(3 2^40) = [0; 3, (2^40 - 1)/3]: the best approximation from
  // below with parts < 2^32 is the semiconvergent t/(3t + 1), t as large as
  // the limit allows.
  using u128 = unsigned __int128;
  auto below = vdp::rational::make((u128{1} << 40) - 1, u128{3} << 40);
  BOOST_TEST(below.num == 1431655764u);
  BOOST_TEST(below.den == 4294967293u);
  // x = 1/3 + 1/(3 2^40): no p/q with q < 2^32 lies in (1/3, x], so 1/3.
  auto above = vdp::rational::make((u128{1} << 40) + 1, u128{3} << 40);
  BOOST_TEST(vdp::to_string(above) == "1/3");
}

BOOST_AUTO_TEST_CASE(bad_values_are_refused) {
  BOOST_CHECK_THROW(vdp::rational::from_double(-1), std::invalid_argument);
  BOOST_CHECK_THROW(vdp::rational::from_double(std::nan("")),
                    std::invalid_argument);
  BOOST_CHECK_THROW(vdp::rational::make(1, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
