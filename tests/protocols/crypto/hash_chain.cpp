// The hash-chain lottery (docs/feverless-election.md): elements check
// against the commitment in any order, nothing else does, a party cannot
// change an element after committing, the joint element needs every
// reveal, and the tickets are uniform.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <vector>

#include "protocols/crypto/hash_chain.hpp"
#include "protocols/crypto/random.hpp"

using namespace veil::protocols::crypto;
using chain = veil::protocols::crypto::hash_chain;

namespace {

key32 seed_of(std::uint64_t s) {
  seeded_random rng(s);
  key32 k;
  for (std::size_t i = 0; i < 32; i += 8) {
    auto w = rng();
    std::memcpy(k.data() + i, &w, 8);
  }
  return k;
}

std::vector<std::uint64_t> chain_tickets(const key32& x, const round_input& in,
                                         std::size_t n) {
  return ticket_stream(x, in).first(n);
}

} // namespace

BOOST_AUTO_TEST_SUITE(crypto)
BOOST_AUTO_TEST_SUITE(hash_chain)

BOOST_AUTO_TEST_CASE(elements_are_the_naive_chain_across_segments) {
  // Independent reference: the whole chain hashed down from the seed.
  constexpr std::uint64_t n = 2500; // three checkpoint segments
  auto seed = seed_of(1);
  std::vector<key32> naive(n + 1);
  naive[n] = chain_step(seed);
  for (auto k = n; k > 0; --k)
    naive[k - 1] = chain_step(naive[k]);
  chain c(seed, n);
  BOOST_TEST((c.tip() == naive[0]));
  for (std::uint64_t k : {1ull, 2ull, 1023ull, 1024ull, 1025ull, 2048ull,
                          2049ull, 2499ull, 2500ull})
    BOOST_TEST((c.element(k) == naive[k]), "element " << k);
  BOOST_TEST((c.element(7) == naive[7])); // back to an earlier segment
  BOOST_CHECK_THROW(c.element(0), std::out_of_range);
  BOOST_CHECK_THROW(c.element(n + 1), std::out_of_range);
  chain one(seed, 1);
  BOOST_TEST((one.element(1) == chain_step(seed)));
  BOOST_TEST((one.tip() == chain_step(chain_step(seed))));
}

BOOST_AUTO_TEST_CASE(reveals_verify_in_any_order_and_forgeries_fail) {
  chain c(seed_of(2), 100);
  chain_verifier v(c.tip(), 100);
  BOOST_TEST(v.accept(3, c.element(3)));   // a gap of three
  BOOST_TEST(v.accept(3, c.element(3)));   // again
  BOOST_TEST(v.accept(1, c.element(1)));   // earlier, from the known one
  BOOST_TEST(v.accept(40, c.element(40))); // a gap
  BOOST_TEST(v.accept(100, c.element(100)));
  BOOST_TEST(!v.accept(101, c.element(100))); // beyond the chain
  BOOST_TEST(!v.accept(0, c.tip()));          // the commitment is no reveal

  // Another party's chain, a flipped bit, or the right element at the wrong
  // round: refused, and the verifier keeps what it knew.
  chain other(seed_of(3), 100);
  chain_verifier w(c.tip(), 100);
  BOOST_TEST(!w.accept(5, other.element(5)));
  auto flipped = c.element(5);
  flipped.data()[17] ^= 1;
  BOOST_TEST(!w.accept(5, flipped));
  BOOST_TEST(!w.accept(6, c.element(5)));
  BOOST_TEST(!w.accept(4, c.element(5)));
  BOOST_TEST(w.accept(5, c.element(5)));
  BOOST_TEST(!w.accept(5, flipped)); // once known, still not another
}

BOOST_AUTO_TEST_CASE(a_party_cannot_change_its_tickets_after_committing) {
  // Whatever seed a party switches to after committing, its elements no
  // longer check against the tip it committed to, so neither do its
  // tickets; and the tickets of one element are fixed by the round.
  chain committed(seed_of(4), 10);
  chain_verifier v(committed.tip(), 10);
  for (std::uint64_t s = 5; s < 105; ++s) {
    chain switched(seed_of(s), 10);
    BOOST_TEST_REQUIRE(!v.accept(1, switched.element(1)));
  }
  round_input in{1, 0, {}};
  auto a = chain_tickets(committed.element(1), in, 8);
  BOOST_TEST((a == chain_tickets(committed.element(1), in, 8)));
  // Each field of the round changes every ticket.
  auto differs = [&](round_input other) {
    auto b = chain_tickets(committed.element(1), other, 8);
    for (std::size_t i = 0; i < 8; ++i)
      if (a[i] == b[i])
        return false;
    return true;
  };
  BOOST_TEST(differs({2, 0, {}}));
  BOOST_TEST(differs({1, 1, {}}));
  round_input d{1, 0, {}};
  d.digest[31] = 1;
  BOOST_TEST(differs(d));
  BOOST_TEST(chain_tickets(committed.element(2), in, 8)[0] != a[0]);
  // A prefix of a longer draw is the shorter draw: a unit's ticket does not
  // depend on how many units the round has after it.
  auto longer = chain_tickets(committed.element(1), in, 300);
  BOOST_TEST(
      (std::vector<std::uint64_t>(longer.begin(), longer.begin() + 8) == a));
  // A range from any ticket, inside a block or at its start, is the same
  // slice of the stream.
  for (std::size_t from : {0u, 1u, 7u, 8u, 9u, 63u, 100u, 250u})
    for (std::size_t count : {0u, 1u, 2u, 7u, 50u}) {
      auto r = ticket_stream(committed.element(1), in).range(from, count);
      BOOST_TEST(
          (r == std::vector<std::uint64_t>(longer.begin() + from,
                                           longer.begin() + from + count)),
          "range from " << from << ", " << count << " tickets");
    }
  // One ticket at a time, in any order, gives the same tickets.
  ticket_stream one_by_one(committed.element(1), in, 300);
  for (std::size_t i : {299u, 0u, 1u, 63u, 64u, 65u, 127u, 128u, 150u, 7u})
    BOOST_TEST(one_by_one.at(i) == longer[i], "ticket " << i);
  BOOST_CHECK_THROW(one_by_one.at(300), std::out_of_range);
  // Scores compare as their tickets.
  BOOST_TEST(score_greater(as_score(longer[0]), as_score(longer[1])) ==
             (longer[0] > longer[1]));
  BOOST_TEST(score_greater(as_score(1ull << 56), as_score(0xFFull)));
  BOOST_TEST(!score_greater(as_score(5), as_score(5)));
}

BOOST_AUTO_TEST_CASE(tickets_are_uniform) {
  // Chi-square of the top byte of 200 rounds x 256 tickets over its 256
  // values: 255 degrees of freedom, P(chi2 > 330.5) = 0.001.
  chain c(seed_of(6), 200);
  std::array<double, 256> counts{};
  round_input in{1, 0, {}};
  for (std::uint64_t k = 1; k <= 200; ++k)
    for (const auto& t : chain_tickets(c.element(k), in, 256))
      ++counts[t >> 56];
  double expected = 200, chi2 = 0;
  for (auto x : counts)
    chi2 += (x - expected) * (x - expected) / expected;
  BOOST_TEST_MESSAGE("ticket chi-square " << chi2);
  BOOST_TEST(chi2 < 330.5);
  // And the winner of a four-party lottery: 3 degrees of freedom,
  // P(chi2 > 16.27) = 0.001.
  std::vector<chain> parties;
  for (std::uint64_t p = 0; p < 4; ++p)
    parties.emplace_back(seed_of(10 + p), 50);
  std::array<double, 4> wins{};
  for (std::uint64_t k = 1; k <= 50; ++k) {
    std::vector<std::vector<std::uint64_t>> t;
    for (auto& p : parties)
      t.push_back(chain_tickets(p.element(k), in, 100));
    for (std::size_t u = 0; u < 100; ++u) {
      std::size_t best = 0;
      for (std::size_t p = 1; p < 4; ++p)
        if (t[p][u] > t[best][u])
          best = p;
      ++wins[best];
    }
  }
  chi2 = 0;
  for (auto w : wins)
    chi2 += (w - 1250) * (w - 1250) / 1250;
  BOOST_TEST_MESSAGE("winner chi-square " << chi2);
  BOOST_TEST(chi2 < 16.27);
}

BOOST_AUTO_TEST_CASE(the_joint_element_needs_every_reveal_in_order) {
  // The joint element is a hash of all the round's elements in party
  // order: changing any one, or their order, changes it.
  chain a(seed_of(20), 10), b(seed_of(21), 10), c(seed_of(22), 10);
  std::vector<key32> round = {a.element(3), b.element(3), c.element(3)};
  auto joint = joint_element(round);
  BOOST_TEST((joint == joint_element(round)));
  for (std::size_t p = 0; p < round.size(); ++p) {
    auto other = round;
    other[p] = chain(seed_of(30 + p), 10).element(3);
    BOOST_TEST(!(joint == joint_element(other)), "party " << p);
  }
  std::swap(round[0], round[1]);
  BOOST_TEST(!(joint == joint_element(round)));
}

BOOST_AUTO_TEST_CASE(attempt_tickets_are_lanes_of_one_stream_per_group) {
  // Group g's stream has round_input::attempt = 4 g; in it, unit u's ticket
  // of attempt 4 g + d and slot j is ticket (4 u + d) slots + j, four to a
  // word, lowest bits first.
  chain c(seed_of(7), 10);
  round_input in{3, 0, {}};
  in.digest[5] = 9;
  constexpr std::size_t units = 100, slots = 3;
  attempt_tickets t(c.element(2), in, units, slots);
  // Later attempts first, as a unit that reaches them reads them.
  for (std::uint32_t a = 12; a-- > 0;) {
    auto group_in = in;
    group_in.attempt = a - a % 4;
    auto words = chain_tickets(c.element(2), group_in, units * slots);
    for (std::size_t u = 0; u < units; ++u)
      for (std::size_t j = 0; j < slots; ++j) {
        auto i = (4 * u + a % 4) * slots + j;
        BOOST_TEST(t.at(u, a, j) == static_cast<std::uint16_t>(words[i / 4] >>
                                                               (16 * (i % 4))),
                   "unit " << u << ", attempt " << a << ", slot " << j);
      }
  }
  BOOST_CHECK_THROW(t.at(units, 0, 0), std::out_of_range);
  BOOST_CHECK_THROW(t.at(0, 5, slots), std::out_of_range);
  // first_group is a unit's first four attempts, attempt by attempt.
  for (std::size_t u = 0; u < units; ++u) {
    auto row = t.first_group(u);
    BOOST_REQUIRE_EQUAL(row.size(), 4 * slots);
    for (std::uint32_t a = 0; a < 4; ++a)
      for (std::size_t j = 0; j < slots; ++j)
        BOOST_TEST(row[a * slots + j] == t.at(u, a, j),
                   "unit " << u << ", attempt " << a << ", slot " << j);
  }
  BOOST_CHECK_THROW(t.first_group(units), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(skipped_units_change_no_other_ticket) {
  // A run of skipped units (a client's own, in the election) leaves every
  // other unit's tickets as they are, at a start, in the middle or at the
  // end, and whatever blocks the run's ends fall in (12 tickets, 24 bytes,
  // a unit); reading a skipped unit throws. A reset reuses the memory and
  // gives what a fresh object gives.
  chain c(seed_of(9), 10);
  round_input in{3, 0, {}};
  in.digest[1] = 4;
  constexpr std::size_t units = 37, slots = 3;
  attempt_tickets all(c.element(4), in, units, slots);
  attempt_tickets reused;
  for (auto [first, count] : {std::pair<std::size_t, std::size_t>{0, 5},
                              {3, 11},
                              {8, 1},
                              {30, 7},
                              {36, 1},
                              {0, units},
                              {12, 0}}) {
    attempt_tickets some(c.element(4), in, units, slots, first, count);
    reused.reset(c.element(4), in, units, slots, first, count);
    for (std::size_t u = 0; u < units; ++u) {
      if (u >= first && u < first + count) {
        BOOST_CHECK_THROW(some.first_group(u), std::out_of_range);
        BOOST_CHECK_THROW(some.at(u, 0, 0), std::out_of_range);
        BOOST_CHECK_THROW(some.at(u, 5, 0), std::out_of_range);
        continue;
      }
      auto want = all.first_group(u);
      auto got = some.first_group(u);
      auto again = reused.first_group(u);
      BOOST_TEST(std::equal(want.begin(), want.end(), got.begin(), got.end()),
                 "unit " << u << ", skipping " << count << " from " << first);
      BOOST_TEST(
          std::equal(want.begin(), want.end(), again.begin(), again.end()),
          "unit " << u << " after a reset");
      BOOST_TEST(some.at(u, 6, 2) == all.at(u, 6, 2), "unit " << u);
    }
  }
}

BOOST_AUTO_TEST_CASE(attempt_tickets_are_uniform) {
  // 200 rounds x 64 units x 8 attempts x 3 slots of 16-bit tickets:
  // chi-square of their top byte, 255 degrees of freedom, P(chi2 > 330.5)
  // = 0.001. And a slot's ticket beats slot 0's with probability
  // (1 - 2^-16) / 2 (ties do not beat it): 204,800 pairs, a binomial's
  // standard deviation is 226, so 4 of them is 905.
  chain joint(seed_of(8), 200);
  std::array<double, 256> counts{};
  std::uint64_t above = 0, pairs = 0;
  for (std::uint64_t k = 1; k <= 200; ++k) {
    attempt_tickets t(joint.element(k), {3, 0, {}}, 64, 3);
    for (std::size_t u = 0; u < 64; ++u)
      for (std::uint32_t a = 0; a < 8; ++a) {
        auto bar = t.at(u, a, 0);
        ++counts[bar >> 8];
        for (std::size_t j = 1; j < 3; ++j) {
          auto x = t.at(u, a, j);
          ++counts[x >> 8];
          above += x > bar ? 1 : 0;
          ++pairs;
        }
      }
  }
  double expected = 200.0 * 64 * 8 * 3 / 256, chi2 = 0;
  for (auto x : counts)
    chi2 += (x - expected) * (x - expected) / expected;
  BOOST_TEST_MESSAGE("attempt ticket chi-square " << chi2);
  BOOST_TEST(chi2 < 330.5);
  double p = (1 - 0x1p-16) / 2;
  BOOST_TEST(std::abs(static_cast<double>(above) - p * pairs) < 905,
             above << " of " << pairs << " beat the threshold");
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
