#include <boost/test/unit_test.hpp>

#include "protocols/crypto/fixed_point.hpp"
#include "protocols/crypto/random.hpp"

#include <cmath>
#include <vector>

namespace vc = veil::protocols::crypto;

BOOST_AUTO_TEST_SUITE(crypto)
BOOST_AUTO_TEST_SUITE(fixed_point)

BOOST_AUTO_TEST_CASE(sums_of_encodings_decode_to_the_sum) {
  vc::fixed_point fp(32);
  vc::seeded_random rng(7);
  std::uint64_t acc = 0;
  double exact = 0;
  for (int i = 0; i < 10000; ++i) {
    double x = (vc::uniform_open01(rng) - 0.5) * 2.0; // (-1, 1): a logistic g
    acc += *fp.encode(x);
    exact += std::ldexp(std::round(std::ldexp(x, 32)), -32);
  }
  BOOST_TEST(fp.decode(acc) == exact);
  // Negative values come back negative (centered lift).
  BOOST_TEST(fp.decode(*fp.encode(-3.25)) == -3.25);
  BOOST_TEST(fp.decode(*fp.encode(0.0)) == 0.0);
}

BOOST_AUTO_TEST_CASE(overflow_is_refused) {
  vc::fixed_point fp(32);
  BOOST_TEST(fp.bound() == 2147483648.0);
  BOOST_TEST(!fp.encode(2147483648.0).has_value());
  BOOST_TEST(!fp.encode(std::nan("")).has_value());
  BOOST_TEST(fp.encode(2147483647.0).has_value());
  // 45,211 logistic gradients (|g| < 1) fit at F = 32; 2^31 of them do not.
  BOOST_TEST(fp.fits(45211, 1.0, 100.0));
  BOOST_TEST(!fp.fits(2147483648.0, 1.0));
}

BOOST_AUTO_TEST_CASE(scaling_by_a_product_is_ldexp_exactly) {
  // encode and decode multiply by 2^F and 2^-F: the same bits as ldexp,
  // from the smallest words and subnormal inputs to the bound.
  vc::seeded_random rng(11);
  for (int f : {8, 32, 40, 48, 62}) {
    vc::fixed_point fp(f);
    std::vector<std::uint64_t> words = {0,
                                        1,
                                        ~std::uint64_t{0},
                                        std::uint64_t{1} << 63,
                                        (std::uint64_t{1} << 63) - 1,
                                        (std::uint64_t{1} << 53) + 1};
    for (int i = 0; i < 1000; ++i)
      words.push_back(rng() >> (rng() % 64));
    for (auto w : words) {
      double want =
          std::ldexp(static_cast<double>(static_cast<std::int64_t>(w)), -f);
      BOOST_TEST(fp.decode(w) == want);
      if (w != std::uint64_t{1} << 63) // -2^63 has no negation
        BOOST_TEST(fp.decode(0 - w) == -want);
    }
    std::vector<double> values = {0.0, -0.0, 5e-324, -2.2e-308,
                                  std::nextafter(fp.bound(), 0.0)};
    for (int i = 0; i < 1000; ++i)
      values.push_back((vc::uniform_open01(rng) - 0.5) *
                       std::ldexp(1.0, static_cast<int>(rng() % 70) - 8 - f));
    for (auto x : values) {
      if (std::fabs(x) >= fp.bound())
        continue;
      BOOST_TEST(*fp.encode(x) ==
                 static_cast<std::uint64_t>(std::llround(std::ldexp(x, f))));
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
