// Per-batch election (spec feverless §13.3, params::election = per_batch):
// one leader election, threshold and volunteer selection per (level,
// source) batch instead of per query. It changes the protocol (far fewer
// VRF runs; one leader sees all of the batch's blinded noise) but not what
// the source learns: with the noise off it builds the plain protocol's
// model, every aggregate is still the plaintext sum plus exactly the
// selected noise, drawn fresh per query, and the leader is the same for
// all queries of a batch and fair over batches.
#include "tests/protocols/feverless/harness.hpp"

#include <map>
#include <set>

#include "protocols/feverless/qid.hpp"

using namespace veil;
using namespace veil::test::fvl;

namespace {

params batched(mode m, int trees, int depth, std::uint64_t session) {
  auto p = session_params(m, trees, depth, session);
  p.election = election_scope::per_batch;
  return p;
}

/// The traces of all sources grouped by election unit.
std::map<std::uint64_t, std::vector<client::query_trace>>
by_unit(const federation& f) {
  std::map<std::uint64_t, std::vector<client::query_trace>> units;
  for (const auto& c : f.clients)
    for (const auto& t : c->traces())
      units[t.unit].push_back(t);
  return units;
}

} // namespace

BOOST_AUTO_TEST_SUITE(feverless)
BOOST_AUTO_TEST_SUITE(batch_election)

BOOST_AUTO_TEST_CASE(noise_off_equals_plain) {
  for (std::size_t n : {2u, 3u, 4u, 5u}) {
    auto d = synthetic(300, 8, 90 + n);
    auto owner = random_owners(300, n, 90 + n);
    auto pb = batched(mode::feverless, 2, 3, 12);
    pb.noise = false;
    auto fb = train_session(d, pb, n, owner, 90 + n);
    auto pp = pb;
    pp.protocol = mode::plain;
    auto pl = train_session(d, pp, n, owner, 90 + n);
    require_same_models(fb, pl);
  }
  // The AHE baseline with a per-batch election, too.
  auto d = synthetic(120, 6, 99);
  auto owner = random_owners(120, 3, 99);
  auto pa = batched(mode::ahe, 1, 3, 13);
  pa.noise = false;
  auto fa = train_session(d, pa, 3, owner, 99);
  auto pp = pa;
  pp.protocol = mode::plain;
  require_same_models(fa, train_session(d, pp, 3, owner, 99));
}

BOOST_AUTO_TEST_CASE(one_leader_per_batch_and_fresh_noise_per_query) {
  for (std::size_t n : {3u, 4u}) {
    auto p = batched(mode::feverless, 1, 3, 14);
    p.test_hooks = true;
    auto d = synthetic(240, 8, 15);
    auto f = train_session(d, p, n, balanced_owners(240, n, 15), 15);
    // Masks cancel, and each query's aggregate holds exactly one draw.
    auto draws = check_aggregates(f);
    for (const auto& [qid, k] : draws)
      BOOST_TEST_REQUIRE(k == 1);
    auto units = by_unit(f);
    std::size_t queries = 0, shared = 0, fresh = 0;
    for (const auto& [id, ts] : units) {
      queries += ts.size();
      // A unit is one source's batch of one level: its id is its first
      // qid, all its queries have one source and one leader.
      BOOST_TEST_REQUIRE(ts.front().qid == id);
      auto source = unpack_qid(id).source;
      std::set<std::uint64_t> noise_g;
      for (const auto& t : ts) {
        BOOST_TEST_REQUIRE(unpack_qid(t.qid).source == source);
        BOOST_TEST_REQUIRE(t.leader == ts.front().leader);
        BOOST_TEST_REQUIRE(t.leader != static_cast<int>(source));
        // The leader recorded the selection of every query of its unit.
        BOOST_TEST_REQUIRE(f.clients[t.leader]->selections().count(t.qid) ==
                           1u);
        for (const auto& c : f.clients) {
          auto it = c->noise_draws().find(t.qid);
          if (it != c->noise_draws().end())
            noise_g.insert(it->second.g);
        }
      }
      if (ts.size() > 1) {
        ++shared;
        // Fresh draws per query: no two queries of the batch share one.
        fresh += noise_g.size() == ts.size();
      }
    }
    // At most one unit per (level, source): depth 3 gives 3 levels.
    BOOST_TEST(units.size() <= 3 * n);
    BOOST_TEST(queries > 10 * units.size());
    BOOST_TEST(shared > 0u);
    BOOST_TEST(fresh == shared);
  }
}

BOOST_AUTO_TEST_CASE(redone_batches_and_portion_selection) {
  // n = 3: one candidate per batch, who beats the threshold with
  // probability 1/2, so batches are redone; portion selection with n = 6.
  auto p = batched(mode::feverless, 3, 2, 16);
  p.test_hooks = true;
  auto d = synthetic(90, 6, 16);
  auto f = train_session(d, p, 3, balanced_owners(90, 3, 16), 16);
  std::size_t redone = 0;
  std::set<std::uint64_t> units;
  for (const auto& [id, ts] : by_unit(f)) {
    units.insert(id);
    auto leader = ts.front().leader;
    const auto& s = f.clients[leader]->selections().at(ts.front().qid);
    redone += s.attempts > 1;
    BOOST_TEST_REQUIRE(s.selected == 1u);
  }
  BOOST_TEST(units.size() >= 12u);
  BOOST_TEST(redone > 0u);
  auto q = batched(mode::feverless, 1, 2, 17);
  q.test_hooks = true;
  q.selection = noise_selection::portion;
  q.portion = 0.5;
  auto g =
      train_session(synthetic(90, 6, 17), q, 6, balanced_owners(90, 6, 17), 17);
  // One tree: the draws are checked against the plaintext; every query of
  // a unit holds the unit's k draws.
  auto draws = check_aggregates(g);
  for (const auto& [id, ts] : by_unit(g)) {
    const auto& s = g.clients[ts.front().leader]->selections().at(id);
    for (const auto& t : ts)
      BOOST_TEST_REQUIRE(draws.at(t.qid) == static_cast<int>(s.selected));
  }
}

BOOST_AUTO_TEST_CASE(fewer_signatures_than_signed_per_query) {
  auto d = synthetic(200, 8, 18);
  auto owner = balanced_owners(200, 4, 18);
  params pq;
  pq.trees = 1;
  pq.max_depth = 3;
  pq.session = 18;
  pq.election = election_scope::signed_query;
  auto pb = pq;
  pb.election = election_scope::per_batch;
  auto a = train_session(d, pq, 4, owner, 18);
  auto b = train_session(d, pb, 4, owner, 18);
  auto lead = [](const federation& f) {
    std::size_t s = 0;
    for (const auto& sent : f.sent)
      s += sent.at("lead") + sent.at("thresh");
    return s;
  };
  // Tickets are 96 bytes; per query vs per batch of tens of queries.
  BOOST_TEST(lead(b) * 10 < lead(a));
  // Same queries, same masked traffic per query (2 words each).
  BOOST_TEST(a.clients[0]->privacy().queries_total > 0u);
}

BOOST_AUTO_TEST_CASE(the_batch_leader_is_fair) {
  // Each (tree, level, source) batch is led by each other client with
  // probability 1/(n-1): chi-square over the batches' leaders.
  constexpr int n = 5;
  auto p = batched(mode::feverless, 40, 2, 19);
  p.test_hooks = true;
  auto d = synthetic(60, 10, 19);
  auto f = train_session(d, p, n, random_owners(60, n, 19), 19);
  std::vector<double> leads(n, 0), expected(n, 0), rank(n - 1, 0);
  std::size_t batches = 0;
  for (const auto& [id, ts] : by_unit(f)) {
    ++batches;
    int s = static_cast<int>(unpack_qid(id).source);
    int l = ts.front().leader;
    BOOST_TEST_REQUIRE(l != s);
    leads[l] += 1;
    rank[l < s ? l : l - 1] += 1;
    for (int c = 0; c < n; ++c)
      if (c != s)
        expected[c] += 1.0 / (n - 1);
  }
  BOOST_TEST(batches > 300u);
  // 4 and 3 degrees of freedom: P(chi2 > 18.47) = P(chi2 > 16.27) = 0.001.
  BOOST_TEST(chi_square(leads, expected) < 18.47);
  BOOST_TEST(chi_square(rank, std::vector<double>(n - 1, batches / (n - 1.0))) <
             16.27);
}

BOOST_AUTO_TEST_CASE(tampered_batch_tickets_are_refused) {
  auto d = synthetic(90, 6, 2);
  auto p = batched(mode::feverless, 1, 2, 20);
  auto f = make_federation(d, p, 3, balanced_owners(90, 3, 2), 2);
  auto done = std::make_shared<bool>(false);
  std::string e;
  try {
    run_training(f, 2, [done](int from, int to, message& m) {
      auto* x = std::get_if<lead_tickets>(&m);
      if (!x || from != 1 || to != 2 || *done || x->tickets.empty())
        return;
      x->tickets[0].sig[3] ^= 1;
      *done = true;
    });
  } catch (const std::runtime_error& x) {
    e = x.what();
  }
  BOOST_TEST_INFO(e);
  BOOST_TEST(e.find("party 2 refused at lead") != std::string::npos);
  // The nonce count is one per batch.
  auto g = make_federation(d, p, 3, balanced_owners(90, 3, 2), 2);
  auto cut = std::make_shared<bool>(false);
  e.clear();
  try {
    run_training(g, 2, [cut](int, int, message& m) {
      auto* x = std::get_if<query_batch>(&m);
      if (!x || *cut || x->qids.empty())
        return;
      x->nonces.resize(64);
      *cut = true;
    });
  } catch (const std::runtime_error& x) {
    e = x.what();
  }
  BOOST_TEST(e.find("field lengths differ") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
