// Noise-leader election (spec feverless §7.3, §16 test 10): the source
// never leads, and over many queries each of the other clients leads with
// probability 1/(n-1) (chi-square).
#include "tests/protocols/feverless/harness.hpp"

using namespace veil;
using namespace veil::test::fvl;

BOOST_AUTO_TEST_SUITE(feverless)
BOOST_AUTO_TEST_SUITE(election)

BOOST_AUTO_TEST_CASE(the_leader_is_fair_and_never_the_source) {
  constexpr int n = 5;
  params p;
  p.trees = 2;
  p.max_depth = 2;
  p.session = 31;
  p.test_hooks = true;
  auto d = synthetic(200, 10, 31);
  auto f = train_session(d, p, n, random_owners(200, n, 31), 31);
  // Leads per client against their expectation: a query of source s is led
  // by each c != s with probability 1/(n-1). Also by rank: the leader's
  // position among the source's n-1 others is uniform.
  std::vector<double> leads(n, 0), expected(n, 0), rank(n - 1, 0);
  std::size_t queries = 0, by_source = 0;
  for (int s = 0; s < n; ++s)
    for (const auto& t : f.clients[s]->traces()) {
      ++queries;
      by_source += t.leader == s;
      BOOST_TEST_REQUIRE(t.leader >= 0);
      BOOST_TEST_REQUIRE(t.leader < n);
      leads[t.leader] += 1;
      rank[t.leader < s ? t.leader : t.leader - 1] += 1;
      for (int c = 0; c < n; ++c)
        if (c != s)
          expected[c] += 1.0 / (n - 1);
    }
  BOOST_TEST(by_source == 0u);
  BOOST_TEST(queries > 400u);
  // 4 and 3 degrees of freedom: P(chi2 > 18.47) = P(chi2 > 16.27) = 0.001.
  BOOST_TEST(chi_square(leads, expected) < 18.47);
  BOOST_TEST(chi_square(rank, std::vector<double>(n - 1, queries / (n - 1.0))) <
             16.27);
  // Every client agrees on every leader: the sources recorded theirs, the
  // leaders recorded the queries they led.
  std::size_t led = 0;
  for (int c = 0; c < n; ++c)
    led += f.clients[c]->selections().size();
  BOOST_TEST(led == queries);
  for (int s = 0; s < n; ++s)
    for (const auto& t : f.clients[s]->traces())
      BOOST_TEST_REQUIRE(f.clients[t.leader]->selections().count(t.qid) == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
