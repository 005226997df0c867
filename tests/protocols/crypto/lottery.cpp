// The noise-leader lottery: tickets verify, forgeries do not, and the
// winner is uniform over the parties (chi-square over many queries).
#include <boost/test/unit_test.hpp>

#include <array>

#include "protocols/crypto/lottery.hpp"
#include "protocols/crypto/random.hpp"

using namespace veil::protocols::crypto;

BOOST_AUTO_TEST_SUITE(crypto)
BOOST_AUTO_TEST_SUITE(lottery)

BOOST_AUTO_TEST_CASE(tickets_verify_and_forgeries_fail) {
  identity alice, bob;
  std::array<std::uint8_t, 32> r{};
  std::vector<std::uint32_t> ids = {5, 3, 9};
  auto in = lottery_input(1, 42, 0, ids, r);
  auto t = draw_ticket(alice, in);
  BOOST_TEST(check_ticket(alice.public_key_bytes(), in, t));
  BOOST_TEST(!check_ticket(bob.public_key_bytes(), in, t));
  auto forged = t;
  forged.value[0] ^= 1;
  BOOST_TEST(!check_ticket(alice.public_key_bytes(), in, forged));
  // The input depends on the ids as a set, on qid and on attempt.
  std::vector<std::uint32_t> reordered = {9, 5, 3};
  BOOST_TEST(lottery_input(1, 42, 0, reordered, r) == in);
  BOOST_TEST(lottery_input(1, 43, 0, ids, r) != in);
  BOOST_TEST(lottery_input(1, 42, 1, ids, r) != in);
}

BOOST_AUTO_TEST_CASE(leader_selection_is_fair) {
  constexpr int parties = 5;
  std::vector<identity> ids;
  for (int i = 0; i < parties; ++i) {
    key32 seed;
    seed.data()[0] = static_cast<std::uint8_t>(i + 1);
    ids.emplace_back(seed);
  }
  std::array<int, parties> wins{};
  constexpr int rounds = 5000;
  seeded_random rng(2024);
  for (int q = 0; q < rounds; ++q) {
    std::array<std::uint8_t, 32> r;
    for (std::size_t b = 0; b < 32; b += 8) {
      auto w = rng();
      std::memcpy(r.data() + b, &w, 8);
    }
    std::vector<std::uint32_t> missing = {static_cast<std::uint32_t>(q)};
    auto in = lottery_input(1, static_cast<std::uint64_t>(q), 0, missing, r);
    int best = 0;
    auto best_score = draw_ticket(ids[0], in).value;
    for (int c = 1; c < parties; ++c) {
      auto s = draw_ticket(ids[c], in).value;
      if (score_greater(s, best_score)) {
        best = c;
        best_score = s;
      }
    }
    ++wins[best];
  }
  double expected = static_cast<double>(rounds) / parties;
  double chi2 = 0;
  for (int w : wins)
    chi2 += (w - expected) * (w - expected) / expected;
  // Chi-square with 4 degrees of freedom: P(chi2 > 18.47) = 0.001.
  BOOST_TEST_MESSAGE("lottery chi-square " << chi2);
  BOOST_TEST(chi2 < 18.47);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
