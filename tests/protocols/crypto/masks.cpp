// Pairwise masks: they cancel in the sum of all parties for every query,
// differ between queries and contexts, and hide a party's value from a
// coalition of all but two parties.
#include <boost/test/unit_test.hpp>

#include <numeric>

#include "protocols/crypto/key_agreement.hpp"
#include "protocols/crypto/masks.hpp"
#include "protocols/crypto/random.hpp"

using namespace veil::protocols::crypto;

namespace {

/// n parties with seeded session keys and all pairwise seeds.
struct group {
  std::vector<session_key> keys;
  // seeds[a][b] = seed of pair (a, b)
  std::vector<std::vector<key32>> seeds;

  explicit group(std::uint32_t n) {
    for (std::uint32_t i = 0; i < n; ++i) {
      seeded_random r(1000 + i);
      key32 s;
      for (std::size_t b = 0; b < 32; b += 8) {
        auto w = r();
        std::memcpy(s.data() + b, &w, 8);
      }
      keys.emplace_back(s);
    }
    seeds.assign(n, std::vector<key32>(n));
    for (std::uint32_t a = 0; a < n; ++a)
      for (std::uint32_t b = 0; b < n; ++b)
        if (a != b)
          seeds[a][b] = *keys[a].shared_seed(a, b, keys[b].public_key_bytes());
  }

  /// The mask of party `self` over the parties in `members`.
  std::vector<std::uint64_t> mask(std::uint32_t self,
                                  const std::vector<std::uint32_t>& members,
                                  std::uint64_t qid, std::size_t len) {
    std::vector<std::uint32_t> peers;
    std::vector<key32> s;
    for (auto m : members)
      if (m != self) {
        peers.push_back(m);
        s.push_back(seeds[self][m]);
      }
    std::vector<std::uint64_t> out(len);
    pairwise_mask(self, peers, s, qid, "VeilMskG", out);
    return out;
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(crypto)
BOOST_AUTO_TEST_SUITE(masks)

BOOST_AUTO_TEST_CASE(pairwise_seeds_agree) {
  group g(5);
  for (std::uint32_t a = 0; a < 5; ++a)
    for (std::uint32_t b = 0; b < 5; ++b)
      if (a != b)
        BOOST_TEST((g.seeds[a][b] == g.seeds[b][a]));
  BOOST_TEST(!(g.seeds[0][1] == g.seeds[0][2]));
}

BOOST_AUTO_TEST_CASE(masks_cancel_for_every_query_and_subset) {
  group g(6);
  std::vector<std::vector<std::uint32_t>> subsets = {
      {0, 1, 2, 3, 4, 5}, {0, 1}, {1, 3, 5}, {0, 2, 3, 4}, {2, 5}};
  for (const auto& members : subsets)
    for (std::uint64_t qid : {0ull, 1ull, 77ull, 1ull << 40}) {
      std::vector<std::uint64_t> sum(33, 0);
      for (auto c : members) {
        auto m = g.mask(c, members, qid, 33);
        for (std::size_t i = 0; i < sum.size(); ++i)
          sum[i] += m[i];
      }
      for (auto s : sum)
        BOOST_REQUIRE_EQUAL(s, 0u);
    }
}

BOOST_AUTO_TEST_CASE(masks_change_with_query_and_context) {
  group g(3);
  std::vector<std::uint32_t> all = {0, 1, 2};
  auto a = g.mask(0, all, 5, 8);
  auto b = g.mask(0, all, 6, 8);
  BOOST_TEST(a != b);
  std::vector<std::uint64_t> h(8);
  std::vector<std::uint32_t> peers = {1, 2};
  std::vector<key32> s = {g.seeds[0][1], g.seeds[0][2]};
  pairwise_mask(0, peers, s, 5, "VeilMskH", h);
  BOOST_TEST(a != h);
  // Same inputs, same mask: both sides of a pair derive it alone.
  BOOST_TEST(a == g.mask(0, all, 5, 8));
}

BOOST_AUTO_TEST_CASE(masked_value_looks_uniform_to_a_coalition) {
  // Parties 2..n-1 collude (n - 2 of them) and know their own seeds; the
  // masked values of honest parties 0 and 1 still carry the unknown pair
  // term PRG(S_01), so a value's masked word is uniform: check its top bits
  // over many queries are balanced whatever the value (0 or 2^40).
  group g(5);
  std::vector<std::uint32_t> all = {0, 1, 2, 3, 4};
  int ones_small = 0, ones_large = 0;
  const int queries = 4000;
  for (int q = 0; q < queries; ++q) {
    auto m = g.mask(0, all, static_cast<std::uint64_t>(q), 1);
    // What the coalition can strip: the terms of pairs (0, c) for c >= 2.
    std::vector<std::uint32_t> known = {2, 3, 4};
    std::vector<key32> ks = {g.seeds[0][2], g.seeds[0][3], g.seeds[0][4]};
    std::vector<std::uint64_t> strip(1);
    pairwise_mask(0, known, ks, static_cast<std::uint64_t>(q), "VeilMskG",
                  strip);
    std::uint64_t small = 0 + m[0] - strip[0];
    std::uint64_t large = (1ull << 40) + m[0] - strip[0];
    ones_small += static_cast<int>(small >> 63);
    ones_large += static_cast<int>(large >> 63);
  }
  // Binomial(4000, 1/2): sd about 31.6; 5 sd either side.
  BOOST_TEST(std::abs(ones_small - queries / 2) < 160);
  BOOST_TEST(std::abs(ones_large - queries / 2) < 160);
}

BOOST_AUTO_TEST_CASE(invalid_peer_key_is_refused) {
  session_key k;
  public_key zero{};
  BOOST_TEST(!k.shared_seed(0, 1, zero).has_value());
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
