// What a party sees (spec privet §8.4 item 14): every word it receives
// while the others multiply, truncate, AND, convert bits and compare is
// uniformly random, even when every input is 0 — each of its 64 bits is 1
// in half of the words, within 5 standard deviations (0.5/√count each);
// a B2A opening is a uniform bit.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include "protocols/mpc/arithmetic.hpp"
#include "protocols/mpc/boolean.hpp"
#include "protocols/mpc/functions.hpp"
#include "tests/protocols/mpc/support.hpp"

using namespace veil::test::mpc;

namespace {

/// Party 1's view of `program` run on zeros at 3 parties: every word it
/// received, over `runs` sessions with fresh seeds.
std::vector<word> view(const std::function<task<words>(party&)>& program,
                       int runs) {
  std::vector<word> seen;
  for (int r = 0; r < runs; ++r) {
    local_network net(3, 500 + static_cast<std::uint64_t>(r));
    net.watch([&](int to, int, const words& w) {
      if (to == 1)
        seen.insert(seen.end(), w.begin(), w.end());
    });
    net.run<words>(program);
  }
  return seen;
}

void bits_are_fair(const std::vector<word>& seen, int bits = 64) {
  BOOST_REQUIRE(!seen.empty());
  auto n = static_cast<double>(seen.size());
  double sd = 0.5 / std::sqrt(n);
  for (int b = 0; b < bits; ++b) {
    double ones = 0;
    for (auto w : seen)
      ones += (w >> b) & 1;
    BOOST_TEST(std::abs(ones / n - 0.5) < 5 * sd, "bit " << b);
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(mpc)
BOOST_AUTO_TEST_SUITE(views)

BOOST_AUTO_TEST_CASE(openings_of_products_and_truncations_are_uniform) {
  bits_are_fair(view(
      [](party& p) -> task<words> {
        words zero(500, 0);
        auto product = co_await mul(p, zero, zero);
        co_return co_await trunc(p, std::move(product), fraction_bits);
      },
      4));
}

BOOST_AUTO_TEST_CASE(openings_of_comparisons_are_uniform) {
  // AND openings and the carry-save words: full words; the B2A opening:
  // one bit (bit 0) per word.
  std::vector<word> full, bits;
  for (int r = 0; r < 4; ++r) {
    local_network net(3, 900 + static_cast<std::uint64_t>(r));
    net.watch([&](int to, int, const words& w) {
      if (to != 1)
        return;
      bool single_bits = true;
      for (auto x : w)
        single_bits = single_bits && x <= 1;
      auto& into = single_bits && w.size() == 300 ? bits : full;
      into.insert(into.end(), w.begin(), w.end());
    });
    net.run<words>([](party& p) -> task<words> {
      words zero(300, 0);
      co_return co_await less_than_zero(p, std::move(zero));
    });
  }
  bits_are_fair(bits, 1);
  // The prefix adder ANDs shifted words, whose low bits are 0 in the
  // clear but masked by the triples: every bit uniform all the same.
  bits_are_fair(full);
}

BOOST_AUTO_TEST_CASE(openings_of_a_masked_division_are_uniform) {
  // Every round of divide_masked opens x − b or x + 2^62 + r: whatever x
  // (here 0 / 1, so every raw product is the same at every run).
  bits_are_fair(view(
      [](party& p) -> task<words> {
        words zero(200, 0);
        words one_plain(200, encode(1.0));
        auto one = p.constant(one_plain);
        co_return co_await divide_scaled(p, std::move(zero), std::move(one), 3);
      },
      4));
}

BOOST_AUTO_TEST_CASE(openings_of_a_selection_are_uniform) {
  // The bit b ⊕ ρ (bit 0 of the first half) and v − β (the second half),
  // for b = 0 and v = 0.
  std::vector<word> bits, values;
  for (int r = 0; r < 4; ++r) {
    local_network net(3, 700 + static_cast<std::uint64_t>(r));
    net.watch([&](int to, int, const words& w) {
      if (to != 1)
        return;
      auto half = w.size() / 2;
      bits.insert(bits.end(), w.begin(), w.begin() + static_cast<long>(half));
      values.insert(values.end(), w.begin() + static_cast<long>(half), w.end());
    });
    net.run<words>([](party& p) -> task<words> {
      words zero(300, 0), zero_values(300, 0);
      co_return co_await select(p, std::move(zero), std::move(zero_values));
    });
  }
  for (auto b : bits)
    BOOST_REQUIRE(b <= 1u);
  bits_are_fair(bits, 1);
  bits_are_fair(values);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
