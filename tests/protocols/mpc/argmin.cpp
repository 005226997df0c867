// SecArgmin (spec privet §8.4 item 6): the plaintext's argmin_first on
// groups of length 1, 2, odd and 31, batched in the same rounds; equal
// values give the lowest index; the minimum stays shared and opens to the
// plaintext's.
#include <boost/test/unit_test.hpp>

#include <algorithm>

#include "protocols/mpc/argmin.hpp"
#include "tests/protocols/mpc/support.hpp"

using namespace veil::test::mpc;

BOOST_AUTO_TEST_SUITE(mpc)
BOOST_AUTO_TEST_SUITE(argmin)

BOOST_AUTO_TEST_CASE(equals_argmin_first) {
  std::mt19937_64 g(8);
  std::uniform_int_distribution<int> small(-5, 5);
  for (int n : party_counts)
    for (std::size_t length : {1u, 2u, 5u, 31u}) {
      const std::size_t groups = 6;
      words v(groups * length);
      for (std::size_t i = 0; i < v.size(); ++i)
        // Few distinct values: many ties. Fixed point, negatives included.
        v[i] = encode(small(g) * 0.25);
      local_network net(n, 10 + length);
      auto out = net.run<words>([&](party& p) -> task<words> {
        words mine;
        if (p.first())
          mine = v;
        auto s = co_await p.share_from(0, std::move(mine), v.size());
        auto r = co_await veil::protocols::mpc::argmin(p, s, groups, length);
        auto minimum = co_await p.open(r.minimum);
        words both(r.index.begin(), r.index.end());
        both.insert(both.end(), minimum.begin(), minimum.end());
        co_return both;
      });
      for (std::size_t gi = 0; gi < groups; ++gi) {
        auto first = v.begin() + static_cast<long>(gi * length);
        auto best = std::min_element(
            first, first + static_cast<long>(length),
            [](word a, word b) { return to_signed(a) < to_signed(b); });
        BOOST_TEST(out[0][gi] == static_cast<word>(best - first),
                   n << " parties, length " << length << ", group " << gi);
        BOOST_TEST(out[0][groups + gi] == *best);
      }
      for (int p = 1; p < n; ++p) // the index is public to all
        BOOST_TEST(out[static_cast<std::size_t>(p)] == out[0]);
    }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
