// Boolean shares and comparison (spec privet §4.6–4.7, §8.4 item 5): AND
// and B2A exact; the sign of a shared value exact on random values and the
// edges (0, ±1, ±2^62, the extremes, equal operands) at every party count,
// in the rounds the spec counts.
#include <boost/test/unit_test.hpp>

#include <limits>

#include "protocols/mpc/boolean.hpp"
#include "tests/protocols/mpc/support.hpp"

using namespace veil::test::mpc;

BOOST_AUTO_TEST_SUITE(mpc)
BOOST_AUTO_TEST_SUITE(boolean)

BOOST_AUTO_TEST_CASE(and_of_xor_shares_is_exact) {
  std::mt19937_64 g(6);
  for (int n : party_counts) {
    local_network net(n, 8);
    words x(64), y(64);
    for (std::size_t i = 0; i < x.size(); ++i) {
      x[i] = g();
      y[i] = g();
    }
    // XOR shares: party 0 holds the value, the others 0 (what the
    // comparison starts from).
    auto out = net.run<words>([&](party& p) -> task<words> {
      auto a = p.first() ? x : words(x.size(), 0);
      auto b = p.first() ? y : words(y.size(), 0);
      co_return co_await p.open_xor(co_await and_words(p, a, b));
    });
    for (std::size_t i = 0; i < x.size(); ++i)
      BOOST_TEST(out[0][i] == (x[i] & y[i]));
  }
}

BOOST_AUTO_TEST_CASE(bits_become_arithmetic_exactly) {
  for (int n : party_counts) {
    local_network net(n, 9);
    words bits{0, 1, 1, 0, 1};
    auto out = net.run<words>([&](party& p) -> task<words> {
      // Each party holds a random-looking XOR share of each bit.
      words share(bits.size());
      for (std::size_t i = 0; i < bits.size(); ++i)
        share[i] = p.id() == 0 ? bits[i] ^ ((i + 1) % 2)
                               : (p.id() == 1 ? (i + 1) % 2 : 0);
      co_return co_await p.open(co_await bit_to_arithmetic(p, share));
    });
    BOOST_TEST(out[0] == bits);
  }
}

BOOST_AUTO_TEST_CASE(sign_is_exact_at_the_edges_and_at_random) {
  std::mt19937_64 g(7);
  const auto lo = std::numeric_limits<std::int64_t>::min();
  const auto hi = std::numeric_limits<std::int64_t>::max();
  std::vector<std::int64_t> edge{0,
                                 1,
                                 -1,
                                 std::int64_t{1} << 62,
                                 -(std::int64_t{1} << 62),
                                 lo,
                                 hi,
                                 lo + 1,
                                 hi - 1,
                                 1 << 20,
                                 -(1 << 20)};
  for (int n : party_counts) {
    words x;
    for (auto v : edge)
      x.push_back(static_cast<word>(v));
    for (int i = 0; i < 2000; ++i)
      x.push_back(g() >> (g() % 64));
    for (int i = 0; i < 2000; ++i)
      x.push_back(-(g() >> (g() % 64)));
    traffic t;
    auto got = run_on(
        n, {x},
        [](party& p, std::vector<words> s) -> task<words> {
          co_return co_await opened(p, less_than_zero(p, s[0]));
        },
        &t);
    for (std::size_t i = 0; i < x.size(); ++i)
      BOOST_TEST(got[i] == word{to_signed(x[i]) < 0},
                 n << " parties: " << to_signed(x[i]));
    // share + the masked opening + 3 prefix layers + B2A + open, at any
    // n; words per element and ordered pair: c, 7 + 7 + 6 operands, B2A's
    // and the result's (sharing: n − 1 per element).
    BOOST_TEST(t.rounds == 1u + 1 + 3 + 1 + 1, n << " parties");
    auto pairs = static_cast<std::uint64_t>(n * (n - 1));
    BOOST_TEST(t.words == x.size() * (pairs * (1 + 20 + 1 + 1) + n - 1),
               n << " parties");
  }
}

BOOST_AUTO_TEST_CASE(selection_by_a_shared_bit_is_exact) {
  std::mt19937_64 g(9);
  words bits, values;
  for (int i = 0; i < 500; ++i) {
    bits.push_back(g() & 1);
    values.push_back(g());
  }
  for (int n : party_counts) {
    traffic t;
    auto got = run_on(
        n, {bits, values},
        [](party& p, std::vector<words> s) -> task<words> {
          // Bit 0 of an arithmetic share is not an XOR share: make one
          // from party 0's bit (the others hold 0).
          words xor_bits(s[0].size(), 0);
          auto opened_bits = co_await p.open(s[0]);
          if (p.first())
            xor_bits = opened_bits;
          co_return co_await opened(p, select(p, xor_bits, s[1]));
        },
        &t);
    for (std::size_t i = 0; i < bits.size(); ++i)
      BOOST_TEST(got[i] == bits[i] * values[i], n << " parties, " << i);
    BOOST_TEST(t.rounds == 2u + 1 + 1 + 1, n << " parties");
  }
}

BOOST_AUTO_TEST_CASE(less_than_with_equal_operands_is_false) {
  for (int n : party_counts) {
    words a{encode(1.5), encode(-2), encode(7), 0};
    words b{encode(1.5), encode(-1), encode(-7), 0};
    auto got =
        run_on(n, {a, b}, [](party& p, std::vector<words> s) -> task<words> {
          co_return co_await opened(p, less_than(p, s[0], s[1]));
        });
    BOOST_TEST((got == words{0, 1, 0, 0}));
  }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
