// Coins from a few bits each (bit_coins.hpp): on every prefix of bits, a
// coin decides exactly the prefixes below (true) and above (false) the
// probability's own expansion, so its law is exactly num / den; and the
// discrete Gaussian, which tosses its coins through it, spends a few words
// a draw.
#include <boost/test/unit_test.hpp>

#include <cstdint>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/bit_coins.hpp"
#include "protocols/dp/discrete_gaussian.hpp"
#include "tests/protocols/dp/support.hpp"

namespace vdp = veil::protocols::dp;
namespace vcrypto = veil::protocols::crypto;
namespace vt = veil::test;
using vdp::uint128;

namespace {

/// Its first word is a prefix of `bits` bits (most significant first),
/// then zeros.
struct prefix_engine : vcrypto::word_engine {
  std::uint64_t first;
  int words = 0;
  result_type operator()() { return words++ == 0 ? first : 0; }
};

/// Tallies of a coin over every prefix of `bits` bits: decided true,
/// decided false, and not decided within the prefix.
struct tally {
  std::uint64_t yes = 0, no = 0, open = 0;
};

template <class Toss>
tally over_prefixes(int bits, Toss toss) {
  tally t;
  for (std::uint64_t u = 0; u < (std::uint64_t{1} << bits); ++u) {
    prefix_engine e{{}, u << (64 - bits)};
    vdp::bit_coins<prefix_engine> coins(e);
    bool b = toss(coins);
    if (coins.bits_drawn() > static_cast<std::uint64_t>(bits))
      ++t.open;
    else
      ++(b ? t.yes : t.no);
  }
  return t;
}

/// U < num / den for U uniform: of the 2^bits prefixes, floor(num 2^bits /
/// den) lie wholly below p; the one that p's own prefix is stays open
/// unless p ends within the prefix; the rest lie above.
void require_exact(const tally& t, int bits, uint128 num, uint128 den,
                   const char* what) {
  // floor(num 2^bits / den) and whether a remainder is left, by long
  // division (num << bits would overflow for the widest coins).
  std::uint64_t below = 0;
  uint128 r = num;
  for (int i = 0; i < bits; ++i) {
    const bool digit = r >= den - r;
    r = digit ? r - (den - r) : r + r;
    below = 2 * below + (digit ? 1 : 0);
  }
  const std::uint64_t open = r == 0 ? 0 : 1;
  BOOST_TEST(t.yes == below, what);
  BOOST_TEST(t.open == open, what);
  BOOST_TEST(t.no == (std::uint64_t{1} << bits) - below - open, what);
}

} // namespace

BOOST_AUTO_TEST_SUITE(dp)
BOOST_AUTO_TEST_SUITE(bit_coins)

BOOST_AUTO_TEST_CASE(a_coin_is_exact_on_every_prefix_of_bits) {
  constexpr int bits = 16; // whole chunks
  struct coin {
    std::uint64_t num, den;
    const char* what;
  };
  for (auto c :
       {coin{1, 2, "1/2"}, coin{1, 3, "1/3"}, coin{2, 3, "2/3"},
        coin{5, 8, "5/8 (ends after 3 digits)"}, coin{7, 1000003, "7/1000003"},
        coin{(std::uint64_t{1} << 63) + 5, ~std::uint64_t{0},
             "near 1/2 with a 64-bit denominator"},
        coin{~std::uint64_t{0} - 1, ~std::uint64_t{0}, "just below 1"}}) {
    auto t =
        over_prefixes(bits, [&](auto& g) { return g.bernoulli(c.num, c.den); });
    require_exact(t, bits, c.num, c.den, c.what);
  }
  // 128-bit parts, as the discrete Gaussian's acceptance coin has them.
  const uint128 one = 1;
  struct wide {
    uint128 num, den;
    const char* what;
  };
  for (auto c : {wide{(one << 100) + 1, 3 * (one << 99), "about 2/3, wide"},
                 wide{one << 70, (one << 72) - 1, "about 1/4, wide"},
                 wide{12345, 67890, "narrow through the wide call"},
                 wide{one << 122, 3 * (one << 122) + 1,
                      "about 1/3, too wide for a chunk (a bit at a time)"}}) {
    auto t = over_prefixes(
        bits, [&](auto& g) { return g.bernoulli_u128(c.num, c.den); });
    require_exact(t, bits, c.num, c.den, c.what);
  }
  // Certain and impossible coins spend nothing.
  prefix_engine e{{}, 0};
  vdp::bit_coins<prefix_engine> coins(e);
  BOOST_TEST(coins.bernoulli(3, 3));
  BOOST_TEST(!coins.bernoulli(0, 3));
  BOOST_TEST(coins.bernoulli_u128(one << 100, one << 100));
  BOOST_TEST(coins.bits_drawn() == 0u);
}

BOOST_AUTO_TEST_CASE(a_discrete_gaussian_draw_spends_a_few_words) {
  // Before bit_coins, a draw at FEVERLESS's scale spent about 13 words (a
  // word per coin); now about 2 passes' uniform words and a byte per coin
  // (3.7 words a draw).
  struct counting : vcrypto::word_engine {
    vcrypto::seeded_random g{vt::dp_seed};
    std::uint64_t words = 0;
    result_type operator()() {
      ++words;
      return g();
    }
  } g;
  auto dg = vdp::discrete_gaussian::at_least(1.99 * 0x1p32);
  constexpr int draws = 20000;
  for (int i = 0; i < draws; ++i)
    dg(g);
  double per_draw = static_cast<double>(g.words) / draws;
  BOOST_TEST_MESSAGE("words per draw " << per_draw);
  BOOST_TEST(per_draw < 4.0);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
