// Beaver multiplication and truncation (spec privet §4.4–4.5, §8.4 items 3
// and 4): ring products exact; fixed-point products the floor of the exact
// product minus at most n − 1 ulps; the exact truncation never fails over
// 10^6 values up to 2^61, and the paper's fails at the rate |z| / 2^64 it
// predicts.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "protocols/mpc/arithmetic.hpp"
#include "tests/protocols/mpc/support.hpp"

using namespace veil::test::mpc;

namespace {

/// The floor of a / 2^bits for a signed ring value.
std::int64_t floor_shift(word a, int bits) {
  return to_signed(a) >> bits;
}

/// How far below the exact floor each result is: must be 0..n−1.
bool errors_within(const words& got, const words& raw, int bits, int n,
                   std::size_t* worst = nullptr) {
  for (std::size_t i = 0; i < got.size(); ++i) {
    auto e = floor_shift(raw[i], bits) - to_signed(got[i]);
    if (e < 0 || e > n - 1) {
      if (worst)
        *worst = i;
      return false;
    }
  }
  return true;
}

} // namespace

BOOST_AUTO_TEST_SUITE(mpc)
BOOST_AUTO_TEST_SUITE(arithmetic)

BOOST_AUTO_TEST_CASE(ring_products_are_exact) {
  std::mt19937_64 g(2);
  for (int n : party_counts) {
    words x(300), y(300), want(300);
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = g();
      y[i] = i % 3 == 0 ? g() % 2 : g(); // S1 indicators and anything
      want[i] = x[i] * y[i];
    }
    traffic t;
    auto got = run_on(
        n, {x, y},
        [](party& p, std::vector<words> s) -> task<words> {
          co_return co_await opened(p, mul(p, s[0], s[1]));
        },
        &t);
    BOOST_TEST(got == want);
    // 2 shares, 1 Beaver round, 1 opening.
    BOOST_TEST(t.rounds == 4u);
  }
}

BOOST_AUTO_TEST_CASE(fixed_point_products_floor_within_n_ulps) {
  std::mt19937_64 g(3);
  std::uniform_real_distribution<double> u(-2000, 2000);
  for (int n : party_counts) {
    std::vector<double> xs(500), ys(500);
    words x(500), y(500), raw(500);
    for (std::size_t i = 0; i < xs.size(); ++i) {
      xs[i] = u(g);
      ys[i] = u(g) / 1000; // |x y| < 4000 < 2^22
      x[i] = encode(xs[i]);
      y[i] = encode(ys[i]);
      raw[i] = x[i] * y[i];
    }
    auto got =
        run_on(n, {x, y}, [](party& p, std::vector<words> s) -> task<words> {
          co_return co_await opened(p, mul_fixed(p, s[0], s[1]));
        });
    BOOST_TEST(errors_within(got, raw, fraction_bits, n));
    // Against the reals: each encoding rounds by 2^-21, the floor and the
    // n − 1 ulps take at most n ulps of 2^-20 more.
    for (std::size_t i = 0; i < xs.size(); ++i) {
      double bound =
          (std::abs(xs[i]) + std::abs(ys[i]) + 1) * 0x1p-21 + n * 0x1p-20;
      BOOST_TEST(std::abs(decode(got[i]) - xs[i] * ys[i]) <= bound);
    }
  }
}

BOOST_AUTO_TEST_CASE(exact_truncation_never_fails) {
  std::mt19937_64 g(4);
  for (int n : party_counts) {
    const std::size_t k = n == 4 ? 1000000 : 100000;
    words z(k);
    for (std::size_t i = 0; i < k; ++i) {
      // Magnitudes 2^0 .. 2^61, both signs, and the extremes.
      int bits = static_cast<int>(g() % 62);
      auto v = static_cast<std::int64_t>(g() >> (63 - bits));
      z[i] = static_cast<word>(g() % 2 ? -v : v);
    }
    z[0] = word{1} << 61;
    z[1] = static_cast<word>(-(std::int64_t{1} << 61));
    z[2] = 0;
    for (int bits : {fraction_bits, 2}) {
      auto got =
          run_on(n, {z}, [bits](party& p, std::vector<words> s) -> task<words> {
            co_return co_await opened(p, trunc(p, s[0], bits));
          });
      std::size_t bad = 0;
      BOOST_TEST(errors_within(got, z, bits, n, &bad), n << " parties, shift "
                                                         << bits << ", value "
                                                         << to_signed(z[bad]));
    }
  }
}

// The paper's truncation ignores η: a failure adds ±2^(64 − f), and it
// happens exactly when z + r overflows the signed range, which for r
// uniform has probability |z| / 2^64. Over 200,000 values of about 2^58
// the failures are a binomial with that mean: within 5 standard
// deviations of it.
BOOST_AUTO_TEST_CASE(paper_truncation_fails_at_the_predicted_rate) {
  std::mt19937_64 g(5);
  const std::size_t k = 200000;
  words z(k);
  double expected = 0;
  for (std::size_t i = 0; i < k; ++i) {
    auto v = static_cast<std::int64_t>((g() >> 6) | (std::uint64_t{1} << 57));
    z[i] = static_cast<word>(i % 2 ? -v : v);
    expected += std::ldexp(static_cast<double>(v), -64);
  }
  auto got = run_on(4, {z}, [](party& p, std::vector<words> s) -> task<words> {
    co_return co_await opened(p,
                              trunc(p, s[0], fraction_bits, truncation::paper));
  });
  double failures = 0;
  for (std::size_t i = 0; i < k; ++i) {
    auto e = floor_shift(z[i], fraction_bits) - to_signed(got[i]);
    if (e < 0 || e > 3) {
      ++failures;
      BOOST_TEST(std::abs(std::abs(static_cast<double>(e)) - 0x1p44) < 4);
    }
  }
  BOOST_TEST_MESSAGE("paper truncation: " << failures << " failures, "
                                          << expected << " expected");
  BOOST_TEST(std::abs(failures - expected) < 5 * std::sqrt(expected));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
