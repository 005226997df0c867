// Coins from a few bits each (bit_coins.hpp): on every prefix of bits, a
// coin decides exactly the prefixes below (true) and above (false) the
// probability's own expansion, so its law is exactly num / den; and the
// discrete Gaussian, which tosses its coins through it, spends a few words
// a draw.
#include <boost/test/unit_test.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/dp/bit_coins.hpp"
#include "protocols/dp/discrete_gaussian.hpp"
#include "protocols/dp/inverse_e.hpp"
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

/// Its words, in order, then zeros.
struct words_engine : vcrypto::word_engine {
  std::vector<std::uint64_t> words;
  std::size_t at = 0;
  result_type operator()() { return at < words.size() ? words[at++] : 0; }
};

/// floor(2^512 / e), 8 words: the exact fraction sum_{k < 200} (-1)^k / k!
/// in Python (fractions.Fraction), whose error is far below 2^-512.
constexpr std::array<std::uint64_t, 8> inverse_e_512 = {
    0x5e2d58d8b3bcdf1a, 0xbadec7829054f90d, 0xda9805aab56c7733,
    0x3024b9d0a507daed, 0xb16400bf472b4215, 0xb8245b669d90d27a,
    0x5aea5550968dc392, 0x29f03c6276dcaa58};

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

BOOST_AUTO_TEST_CASE(inverse_e_digits_are_those_of_1_over_e) {
  // Against digits computed apart (inverse_e_512) and, for the first 63,
  // against the C library's expl(-1).
  for (std::size_t n : {1u, 2u, 3u, 8u}) {
    std::vector<std::uint64_t> x(n);
    vdp::inverse_e_fixed(x);
    // Within 2 of floor(2^(64 n) / e): the same words above the last, the
    // last within 2 (the first n words of 1/e's 8 continue above 2).
    for (std::size_t i = 0; i + 1 < n; ++i)
      BOOST_TEST(x[i] == inverse_e_512[i], "word " << i << " of " << n);
    const auto last = inverse_e_512[n - 1];
    BOOST_TEST((x[n - 1] + 2 >= last && x[n - 1] <= last + 2),
               "last word of " << n);
  }
  for (int i = 0; i < 16; ++i)
    BOOST_TEST(
        vdp::inverse_e_digits[i] ==
        static_cast<std::uint8_t>(inverse_e_512[i / 8] >> (56 - 8 * (i % 8))));
  const auto libm = static_cast<std::uint64_t>(std::ldexp(std::exp(-1.0L), 63));
  BOOST_TEST(libm - (inverse_e_512[0] >> 1) + 2 <= 4u); // within 2 units
}

BOOST_AUTO_TEST_CASE(an_exp_minus_one_coin_is_exact_on_every_prefix_of_bits) {
  // U < 1/e: floor(2^16 / e) = 0x5e2d prefixes below, 1/e's own open.
  constexpr int bits = 16;
  auto t = over_prefixes(bits, [](auto& g) { return g.bernoulli_exp(1, 1); });
  BOOST_TEST(t.yes == 0x5e2du);
  BOOST_TEST(t.open == 1u);
  BOOST_TEST(t.no == (std::uint64_t{1} << bits) - 0x5e2d - 1);
  // A gamma of 2 tosses the coin twice, a byte each, 1/e's bytes being
  // 0x5e, 0x2d: a yes needs both bytes below 0x5e; a third byte decides
  // after a byte below 0x5e and one equal to it, or after 0x5e and a byte
  // up to 0x2d.
  auto two = over_prefixes(bits, [](auto& g) { return g.bernoulli_exp(2, 1); });
  BOOST_TEST(two.yes == 0x5eu * 0x5eu);
  BOOST_TEST(two.open == 0x5eu + 0x2du + 1);
}

BOOST_AUTO_TEST_CASE(a_u_that_matches_128_digits_of_1_over_e_goes_on) {
  // The 2^-128 case, fed the digits: U is compared with 1/e's further
  // words, 4 words first, then 8 when U still matches them.
  struct after {
    std::vector<std::uint64_t> words;
    bool below;
    const char* what;
  };
  const auto& e = inverse_e_512;
  for (const auto& c : {
           after{{e[0], e[1], e[2] - 1}, true, "word 3 below"},
           after{{e[0], e[1], e[2] + 1}, false, "word 3 above"},
           after{{e[0], e[1], e[2], e[3], e[4], e[5], 0, 0},
                 true,
                 "6 words match, then zeros: below"},
           after{{e[0], e[1], e[2], e[3], e[4], e[5], ~0ull, ~0ull},
                 false,
                 "6 words match, then ones: above"},
       }) {
    words_engine g;
    g.words = c.words;
    vdp::bit_coins<words_engine> coins(g);
    BOOST_TEST(coins.bernoulli_exp(1, 1) == c.below, c.what);
  }
}

BOOST_AUTO_TEST_CASE(exp_coins_match_their_frequencies) {
  // exp(-x) for x = 1 (one 1/e coin), 5/2 (two and a CKS coin) and 1/3
  // (CKS's alone), 400,000 tosses each from the seeded engine: within 4.5
  // standard errors (a false alarm about once in 10^5 per case).
  vcrypto::seeded_random g(vt::dp_seed + 31);
  vdp::bit_coins<vcrypto::seeded_random> coins(g);
  constexpr std::uint64_t tosses = 400000;
  for (auto [num, den] :
       {std::pair<std::uint64_t, std::uint64_t>{1, 1}, {5, 2}, {1, 3}}) {
    std::uint64_t yes = 0;
    for (std::uint64_t i = 0; i < tosses; ++i)
      yes += coins.bernoulli_exp(num, den) ? 1 : 0;
    const double p = std::exp(-static_cast<double>(num) / den);
    const double se = std::sqrt(p * (1 - p) / tosses);
    BOOST_TEST(std::abs(static_cast<double>(yes) / tosses - p) < 4.5 * se,
               num << "/" << den << ": " << yes);
  }
}

BOOST_AUTO_TEST_CASE(a_discrete_gaussian_draw_spends_a_few_words) {
  // Before bit_coins, a draw at FEVERLESS's scale spent about 13 words (a
  // word per coin); now about 2 passes' uniform words and a byte per coin
  // (3.5 words a draw since the exp(-1) coins compare with 1/e's digits).
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
