// Secure aggregation with a noise leader (spec feverless §7, §16 tests
// 2, 7, 11, 13): the masks of all clients cancel, so each source's raw sum
// is the plaintext sum plus exactly the noise of the selected volunteers;
// fixed1 mode puts one draw in each aggregate, portion mode ceil(k̂ p);
// queries nobody volunteers for are redone; n = 2 lets the leader draw;
// a coalition of n - 2 clients sees an honest client's masked value as
// uniform noise; and the differential attack of the paper's Figure 5 (spec
// §11, §16 test 14) recovers a gradient exactly without noise and with an
// error of Δ_g σ with it.
#include "tests/protocols/feverless/harness.hpp"

#include <sodium.h>

#include "protocols/crypto/hash_chain.hpp"

#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

using namespace veil;
using namespace veil::test::fvl;

namespace {

params hooked(int trees, int depth, std::uint64_t session) {
  params p;
  p.trees = trees;
  p.max_depth = depth;
  p.epsilon = 2;
  p.delta = 1e-5;
  p.session = session;
  p.test_hooks = true;
  return p;
}

/// Sample standard deviation of the decoded gradient noise of all queries.
double noise_std(const federation& f) {
  protocols::crypto::fixed_point fp;
  double s = 0, s2 = 0;
  std::size_t n = 0;
  for (const auto& c : f.clients)
    for (const auto& [qid, d] : c->noise_draws()) {
      double x = fp.decode(d.g);
      s += x;
      s2 += x * x;
      ++n;
    }
  double mean = s / static_cast<double>(n);
  return std::sqrt(s2 / static_cast<double>(n) - mean * mean);
}

/// Spec §11 (the paper's Figure 5): ids 1..5 (rows 0..4), the source's
/// Feature1 = 72, 40, 84, 90, 66, so the order by value is ids 2, 5, 1, 3,
/// 4; the source (client 0) labels ids {2, 4}, client 1 ids {1, 3}, client
/// 2 id {5}. Clients 1 and 2 hold one unrelated column each.
dataset figure5() {
  dataset d(5, {"feature1", "x1", "x2"});
  const float f1[] = {72, 40, 84, 90, 66};
  for (std::size_t i = 0; i < 5; ++i) {
    d.value(i, 0) = f1[i];
    d.value(i, 1) = static_cast<float>(i % 2);
    d.value(i, 2) = static_cast<float>(i);
  }
  d.labels() = {1, 0, 1, 0, 1};
  return d;
}

const std::vector<int> figure5_owner = {1, 0, 1, 0, 2};

/// What the source decodes for the query whose missing ids are id 5 alone
/// (row 4), minus g5 itself: the error of the differential attack.
double attack_error(const federation& f) {
  protocols::crypto::fixed_point fp;
  const auto& victim = *f.clients[2];
  BOOST_REQUIRE(victim.label_rows() == std::vector<std::uint32_t>{4});
  double g5 = victim.own_gradients()[0].g;
  std::optional<double> error;
  for (const auto& t : f.clients[0]->traces())
    if (t.ids == std::vector<std::uint32_t>{4}) {
      BOOST_REQUIRE(!error); // one such query at the root, one tree
      error = fp.decode(t.raw_g) - g5;
    }
  BOOST_REQUIRE(error);
  return *error;
}

} // namespace

BOOST_AUTO_TEST_SUITE(feverless)
BOOST_AUTO_TEST_SUITE(aggregation)

BOOST_AUTO_TEST_CASE(the_differential_attack_of_figure_5) {
  // Id 5's bucket holds no other row whose label the source lacks, so its
  // masked sum is g5 alone: secure aggregation does not hide it (spec §11,
  // App. C.2). Without noise the source recovers g5 up to the fixed point;
  // with FEVERLESS's noise the error is one N(0, (Δ_g σ)^2) draw (fixed1).
  auto d = figure5();
  auto p = hooked(1, 1, 50);
  p.noise = false;
  auto plain = train_session(d, p, 3, figure5_owner, 50);
  BOOST_TEST(std::fabs(attack_error(plain)) <= std::ldexp(1.0, -32));

  p.noise = true;
  constexpr int runs = 400;
  double sum = 0, sum2 = 0, sigma = 0;
  for (int s = 0; s < runs; ++s) {
    p.session = 1000 + static_cast<std::uint64_t>(s);
    auto f = train_session(d, p, 3, figure5_owner, 1000 + s);
    sigma = f.clients[0]->sigma() * p.sensitivity_g;
    double e = attack_error(f);
    sum += e;
    sum2 += e * e;
  }
  double mean = sum / runs;
  double sd = std::sqrt(sum2 / runs - mean * mean);
  BOOST_TEST_MESSAGE("attack error: mean " << mean << ", sd " << sd
                                           << ", Δ_g σ " << sigma);
  // Four standard errors: of the mean σ/√R, of the sample sd σ/√(2R).
  BOOST_TEST(std::fabs(mean) <= 4 * sigma / std::sqrt(double{runs}));
  BOOST_TEST(std::fabs(sd - sigma) <= 4 * sigma / std::sqrt(2.0 * runs));
}

BOOST_AUTO_TEST_CASE(masks_cancel_leaving_exactly_the_selected_noise) {
  // n = 4, one tree of depth 3: every query of every level.
  auto d = synthetic(240, 8, 3);
  auto f = train_session(d, hooked(1, 3, 1), 4, balanced_owners(240, 4, 1), 1);
  auto draws = check_aggregates(f);
  // fixed1: exactly one draw in each aggregate.
  std::size_t not_one = 0;
  for (const auto& [qid, k] : draws)
    not_one += k != 1;
  BOOST_TEST(not_one == 0u);
  BOOST_TEST(draws.size() > 200u);
  // The draws are N(0, (Δ_g σ)^2) with Δ_g = 1.
  auto sigma = f.clients[0]->sigma();
  BOOST_TEST(sigma > 1.0);
  auto s = noise_std(f);
  BOOST_TEST(s > 0.8 * sigma);
  BOOST_TEST(s < 1.2 * sigma);
}

BOOST_AUTO_TEST_CASE(fixed1_puts_one_draw_in_each_aggregate_for_n_3_and_5) {
  for (std::size_t n : {3u, 5u}) {
    auto d = synthetic(150, 2 * n, 9);
    auto f =
        train_session(d, hooked(1, 2, 2), n, random_owners(150, n, n), 20 + n);
    auto draws = check_aggregates(f);
    for (const auto& [qid, k] : draws)
      BOOST_TEST_REQUIRE(k == 1);
  }
}

BOOST_AUTO_TEST_CASE(two_clients_the_leader_draws_the_noise_itself) {
  // Spec §7.4: no candidates; the non-source client leads and adds its own
  // draw with r = 0. The identity must still hold.
  auto d = synthetic(200, 6, 4);
  auto f = train_session(d, hooked(1, 3, 3), 2, random_owners(200, 2, 4), 3);
  auto draws = check_aggregates(f);
  for (const auto& [qid, k] : draws)
    BOOST_TEST_REQUIRE(k == 1);
  for (int s = 0; s < 2; ++s)
    for (const auto& t : f.clients[s]->traces()) {
      BOOST_TEST_REQUIRE(t.leader == 1 - s);
      BOOST_TEST_REQUIRE(f.clients[1 - s]->noise_draws().count(t.qid) == 1u);
      BOOST_TEST_REQUIRE(f.clients[s]->noise_draws().count(t.qid) == 0u);
    }
}

BOOST_AUTO_TEST_CASE(chain_leaders_get_no_noise_values) {
  // Chain: no THRESH or NOISE message (the leader computes the volunteers
  // from the LEAD reveals), and each query's draw is made by its selected
  // volunteer (not the source, not the leader), so the leader never holds
  // any value of the noise step. The paper's order (signed) offers n + r
  // per query of every volunteered unit to the leader.
  auto d = synthetic(240, 8, 3);
  auto owner = balanced_owners(240, 4, 1);
  for (auto e : {election_scope::chain, election_scope::signed_query}) {
    auto p = hooked(1, 3, 1);
    p.election = e;
    auto f = make_federation(d, p, 4, owner, 1);
    std::size_t offers = 0, thresholds = 0, values = 0;
    run_training(f, 1, [&](int, int, message& m) {
      thresholds += std::holds_alternative<threshold_tickets>(m);
      if (auto* x = std::get_if<noise_offers>(&m)) {
        ++offers;
        values += x->g.size() + x->h.size();
      }
    });
    auto draws = check_aggregates(f);
    BOOST_TEST(draws.size() > 200u);
    if (e == election_scope::signed_query) {
      BOOST_TEST(thresholds > 0u);
      BOOST_TEST(values >= 2 * draws.size());
      continue;
    }
    BOOST_TEST(thresholds == 0u);
    BOOST_TEST(offers == 0u);
    for (int s = 0; s < 4; ++s)
      for (const auto& t : f.clients[s]->traces()) {
        std::size_t drawers = 0;
        for (int c = 0; c < 4; ++c)
          if (f.clients[c]->noise_draws().count(t.qid)) {
            ++drawers;
            BOOST_TEST_REQUIRE(c != s);
            BOOST_TEST_REQUIRE(c != t.leader);
          }
        BOOST_TEST_REQUIRE(drawers == 1u);
      }
  }
}

BOOST_AUTO_TEST_CASE(chain_leaders_and_volunteers_follow_from_the_reveals) {
  // Recomputes the chain election from what goes over the wire, as
  // docs/feverless-election.md defines it: D_k = BLAKE2b-256 over each
  // source's (nonce, qids as LEB128 steps) in source order; the public and
  // noise joint elements hash every client's reveal in client order; unit
  // i's leader is the high 64 bits of 3 times word i (tag 1) of the stream
  // under the public one, among the clients other than its source, in
  // ascending order; the volunteers are the
  // candidates whose NOISE ticket beats the leader's THRESH ticket at the
  // first attempt with any, both 16-bit tickets (tag 3) under the noise
  // joint element: slot 0 the threshold, slot 1 + r the candidate of rank
  // r. Every trace's leader and every selection's attempt and volunteer
  // count must match.
  auto d = synthetic(300, 8, 17);
  auto f =
      make_federation(d, hooked(2, 3, 17), 4, balanced_owners(300, 4, 17), 17);
  using level = std::pair<int, int>;
  std::map<level, std::map<int, query_batch>> batches;
  std::map<level, std::map<int, lead_tickets>> leads;
  run_training(f, 17, [&](int from, int, message& m) {
    if (auto* b = std::get_if<query_batch>(&m))
      batches[{b->tree, b->depth}].emplace(from, *b);
    if (auto* l = std::get_if<lead_tickets>(&m))
      leads[{l->tree, l->depth}].emplace(from, *l);
  });
  std::map<std::uint64_t, int> leader_of;
  std::map<std::uint64_t, std::pair<std::uint32_t, std::uint32_t>> chosen;
  std::size_t units_seen = 0;
  for (const auto& [lv, by_client] : leads) {
    BOOST_TEST_REQUIRE(by_client.size() == 4u);
    auto& bs = batches[lv];
    std::array<std::uint8_t, 32> digest{};
    crypto_generichash_state st;
    crypto_generichash_init(&st, nullptr, 0, digest.size());
    std::vector<std::pair<std::uint64_t, int>> units; // qid, source
    for (int src = 0; src < 4; ++src) {
      const auto& b = bs.at(src);
      if (b.qids.empty())
        continue;
      crypto_generichash_update(&st, b.nonces.data(), 32);
      // The number of qids, the first, then each one's step from the one
      // before, as LEB128 varints.
      std::vector<std::uint8_t> varints;
      auto put = [&](std::uint64_t v) {
        do {
          varints.push_back(
              static_cast<std::uint8_t>((v & 0x7F) | (v > 0x7F ? 0x80 : 0)));
          v >>= 7;
        } while (v != 0);
      };
      put(b.qids.size());
      for (std::size_t i = 0; i < b.qids.size(); ++i) {
        put(i == 0 ? b.qids[0] : b.qids[i] - b.qids[i - 1]);
        units.emplace_back(b.qids[i], src);
      }
      crypto_generichash_update(&st, varints.data(), varints.size());
    }
    crypto_generichash_final(&st, digest.data(), digest.size());
    auto key = [&](const std::array<std::uint8_t, 32>& x) {
      protocols::crypto::key32 k;
      std::memcpy(k.data(), x.data(), x.size());
      return k;
    };
    std::vector<protocols::crypto::key32> reveals, noise_reveals;
    for (int c = 0; c < 4; ++c) {
      reveals.push_back(key(by_client.at(c).reveal));
      noise_reveals.push_back(key(by_client.at(c).noise_reveal));
    }
    auto lead = protocols::crypto::ticket_stream(
                    protocols::crypto::joint_element(reveals), {1, 0, digest})
                    .first(units.size());
    protocols::crypto::attempt_tickets tickets(
        protocols::crypto::joint_element(noise_reveals), {3, 0, digest},
        units.size(), 3);
    for (std::size_t i = 0; i < units.size(); ++i) {
      auto [qid, src] = units[i];
      // 2^64 mod 3 = 1: only the word 0 would be redrawn.
      BOOST_TEST_REQUIRE(lead[i] != 0u);
      int best =
          static_cast<int>((static_cast<unsigned __int128>(lead[i]) * 3) >> 64);
      best += best >= src ? 1 : 0;
      leader_of[qid] = best;
      for (std::uint32_t a = 0;; ++a) {
        auto threshold = tickets.at(i, a, 0);
        std::uint32_t volunteers = 0;
        std::size_t slot = 1;
        for (int c = 0; c < 4; ++c)
          if (c != src && c != best)
            volunteers += tickets.at(i, a, slot++) > threshold;
        if (volunteers > 0) {
          chosen[qid] = {a + 1, volunteers};
          break;
        }
      }
      ++units_seen;
    }
  }
  BOOST_TEST(units_seen > 300u);
  std::size_t traced = 0, selected = 0;
  for (int s = 0; s < 4; ++s) {
    for (const auto& t : f.clients[s]->traces()) {
      BOOST_TEST_REQUIRE(t.leader == leader_of.at(t.qid));
      ++traced;
    }
    for (const auto& [qid, sel] : f.clients[s]->selections()) {
      BOOST_TEST_REQUIRE(leader_of.at(qid) == s);
      BOOST_TEST_REQUIRE(sel.attempts == chosen.at(qid).first);
      BOOST_TEST_REQUIRE(sel.volunteers == chosen.at(qid).second);
      ++selected;
    }
  }
  BOOST_TEST(traced == units_seen);
  BOOST_TEST(selected == units_seen);
}

BOOST_AUTO_TEST_CASE(selections_with_lead_are_uniform_among_the_volunteers) {
  // Up to max_hinted_clients a candidate reads its selection from its
  // leader's LEAD. When every candidate volunteers (k̂ = n - 2), the one
  // selected (k = 1) is uniform among them: the drawer's position among
  // the candidates, chi-square with n - 3 degrees of freedom; exactly one
  // draws (here and in check_aggregates), and the level has no NOTIFY.
  for (int n : {4, 5}) {
    auto seed = static_cast<std::uint64_t>(40 + n);
    auto d = synthetic(600, 2 * static_cast<std::size_t>(n), seed);
    auto f = make_federation(d, hooked(1, 4, seed), n,
                             balanced_owners(600, n, seed), seed);
    std::size_t notices = 0;
    run_training(f, seed, [&](int, int, message& m) {
      notices += std::holds_alternative<noise_notice>(m);
    });
    BOOST_TEST(notices == 0u);
    auto draws = check_aggregates(f);
    std::vector<double> position(static_cast<std::size_t>(n - 2), 0);
    for (int s = 0; s < n; ++s)
      for (const auto& t : f.clients[s]->traces()) {
        const auto& sel = f.clients[t.leader]->selections().at(t.qid);
        BOOST_TEST_REQUIRE(draws.at(t.qid) == 1);
        if (sel.volunteers != static_cast<std::uint32_t>(n - 2))
          continue;
        int at = 0, drew = -1;
        for (int c = 0; c < n; ++c) {
          if (c == s || c == t.leader)
            continue;
          if (f.clients[c]->noise_draws().count(t.qid))
            drew = at;
          ++at;
        }
        BOOST_TEST_REQUIRE(drew >= 0);
        position[static_cast<std::size_t>(drew)] += 1;
      }
    double all = std::accumulate(position.begin(), position.end(), 0.0);
    BOOST_TEST_MESSAGE(n << " clients: " << all
                         << " units with every "
                            "candidate volunteering");
    BOOST_TEST(all > 200);
    // P(chi2 > 10.83) = 0.001 with 1 degree of freedom, 13.82 with 2.
    BOOST_TEST(
        chi_square(position, std::vector<double>(position.size(),
                                                 all / position.size())) <
        (n == 4 ? 10.83 : 13.82));
  }
}

BOOST_AUTO_TEST_CASE(more_clients_select_through_notify) {
  // Past max_hinted_clients the selections would take 2^(n-3) - 1 bits per
  // unit and receiver: the leaders send NOTIFY instead, LEAD carries none,
  // and every aggregate still holds exactly the selected draws.
  int n = client::max_hinted_clients + 1;
  auto d = synthetic(300, 2 * static_cast<std::size_t>(n), 60);
  auto f =
      make_federation(d, hooked(1, 2, 60), n, balanced_owners(300, n, 60), 60);
  std::size_t notices = 0, selections = 0;
  run_training(f, 60, [&](int, int, message& m) {
    notices += std::holds_alternative<noise_notice>(m);
    if (auto* l = std::get_if<lead_tickets>(&m))
      selections += l->selections.size();
  });
  BOOST_TEST(notices > 0u);
  BOOST_TEST(selections == 0u);
  auto draws = check_aggregates(f);
  BOOST_TEST(draws.size() > 100u);
}

BOOST_AUTO_TEST_CASE(portion_mode_keeps_the_ceiling_of_k_hat_times_p) {
  for (double portion : {0.5, 1.0 / 3}) {
    auto p = hooked(1, 2, 4);
    p.selection = noise_selection::portion;
    p.portion = portion;
    auto d = synthetic(150, 6, 6);
    auto f = train_session(d, p, 6, balanced_owners(150, 6, 6), 6);
    auto draws = check_aggregates(f);
    std::size_t seen = 0, several = 0;
    for (const auto& c : f.clients)
      for (const auto& [qid, s] : c->selections()) {
        ++seen;
        auto want = static_cast<std::uint32_t>(
            std::ceil(s.volunteers * portion - 1e-9));
        BOOST_TEST_REQUIRE(s.volunteers >= 1u);
        BOOST_TEST_REQUIRE(s.volunteers <= 4u); // n - 2 candidates
        BOOST_TEST_REQUIRE(s.selected == want);
        BOOST_TEST_REQUIRE(draws.at(qid) == static_cast<int>(want));
        several += s.selected >= 2;
      }
    BOOST_TEST(seen == draws.size());
    if (portion == 0.5)
      BOOST_TEST(several > 0u); // k̂ = 3 or 4 happened
  }
}

BOOST_AUTO_TEST_CASE(queries_nobody_volunteers_for_are_redone) {
  // n = 3: one candidate per query, who beats a fresh threshold with
  // probability 1/2, so about half the queries need a second attempt and
  // some need several.
  auto d = synthetic(150, 6, 8);
  auto f = train_session(d, hooked(1, 2, 5), 3, balanced_owners(150, 3, 8), 8);
  auto draws = check_aggregates(f);
  std::size_t redone = 0, total = 0;
  std::uint32_t most = 0;
  for (const auto& c : f.clients)
    for (const auto& [qid, s] : c->selections()) {
      ++total;
      redone += s.attempts > 1;
      most = std::max(most, s.attempts);
      BOOST_TEST_REQUIRE(s.volunteers == 1u);
      BOOST_TEST_REQUIRE(draws.at(qid) == 1);
    }
  BOOST_TEST(total == draws.size());
  BOOST_TEST(redone > total / 4);
  BOOST_TEST(redone < 3 * total / 4);
  BOOST_TEST(most >= 3u);
}

BOOST_AUTO_TEST_CASE(chain_units_past_the_first_window_read_the_next) {
  // n = 3, chain: the one candidate beats its leader's threshold with
  // probability 1/2 per attempt, so a unit needs attempt 16 or later (the
  // second window's stream) with probability 2^-16. Two one-tree sessions
  // (check_aggregates compares with the current gradients) of about
  // 200,000 units each expect 6 such units; with these fixed seeds some
  // occur, and their aggregates must still hold exactly one draw.
  std::size_t total = 0, late = 0;
  for (std::uint64_t seed : {31u, 32u}) {
    auto d = synthetic(20000, 40, seed);
    auto f = train_session(d, hooked(1, 10, seed), 3,
                           balanced_owners(20000, 3, seed), seed);
    auto draws = check_aggregates(f);
    for (const auto& c : f.clients)
      for (const auto& [qid, s] : c->selections()) {
        ++total;
        late += s.attempts > 16;
        BOOST_TEST_REQUIRE(draws.at(qid) == 1);
      }
  }
  BOOST_TEST_MESSAGE(total << " units, " << late << " past attempt 16");
  BOOST_TEST(late >= 1u);
}

BOOST_AUTO_TEST_CASE(kept_sums_change_how_not_what) {
  // A receiver derives the larger sibling's label sums from its parent's,
  // and a source its own sums and own-label counts (hence the missing ids'
  // counts) likewise (params::kept_sums_bytes). Keeping none, keeping them
  // only at the shallow levels (a small bound) and keeping them all must
  // give the same raw sums of every query, over trees (node ids restart
  // with each tree), hence the same models: same seeds, same draws.
  auto d = synthetic(400, 8, 41);
  auto owner = balanced_owners(400, 4, 41);
  auto run = [&](std::size_t bytes) {
    auto p = hooked(3, 4, 41);
    p.kept_sums_bytes = bytes;
    return train_session(d, p, 4, owner, 41);
  };
  auto all = run(std::size_t{16} << 20);
  for (std::size_t bytes : {std::size_t{0}, std::size_t{4} << 10}) {
    auto other = run(bytes);
    std::size_t compared = 0;
    for (int s = 0; s < 4; ++s) {
      const auto& a = all.clients[s]->traces();
      const auto& b = other.clients[s]->traces();
      BOOST_TEST_REQUIRE(a.size() == b.size());
      for (std::size_t j = 0; j < a.size(); ++j, ++compared) {
        BOOST_TEST_REQUIRE(a[j].qid == b[j].qid);
        BOOST_TEST_REQUIRE(a[j].raw_g == b[j].raw_g);
        BOOST_TEST_REQUIRE(a[j].raw_h == b[j].raw_h);
      }
    }
    BOOST_TEST(compared > 500u);
    require_same_models(all, other, 0);
  }
}

BOOST_AUTO_TEST_CASE(a_coalition_of_n_minus_2_sees_uniform_masked_values) {
  // n = 4. For each query the coalition is {source, leader} (n - 2 = 2
  // clients, spec §12.1); the honest client A is the lower of the other
  // two, B the higher. A masks pairwise with B and the leader, not with
  // the source (which would strip its own terms anyway); the coalition
  // strips the leader's term from G^(A): v = sum_A g ± PRG(S_{A,B}) (- r_A
  // if A is a selected volunteer). v must be uniform in Z_{2^64} whatever A's
  // true partial sum: chi-square on the top 4 bits over all queries, for
  // the data and for the data with every label flipped (other partial
  // sums), and the two histograms must agree. H^(A) is masked the same way
  // where it is not public: with hide_labels. Otherwise (H exact, the
  // label split published) it is sent as it is, and must be exactly the
  // public sum of h over A's rows of the query.
  constexpr int bins = 16;
  auto view = [](bool flip, bool hide_labels) {
    auto d = synthetic(300, 8, 12);
    if (flip)
      for (auto& y : d.labels())
        y = 1 - y;
    // One tree: the clients' current gradients are those of every query.
    auto p = hooked(1, 3, 6);
    p.hide_labels = hide_labels;
    auto f = make_federation(d, p, 4, balanced_owners(300, 4, 12), 12);
    // masked[(from, to)]: every G^(from), H^(from) sent to source `to`, in
    // order: level by level, each in the source's query order, as the
    // source's traces.
    std::map<std::pair<int, int>, std::vector<std::uint64_t>> mg, mh;
    run_training(f, 12, [&](int from, int to, message& m) {
      if (auto* x = std::get_if<masked_sums>(&m)) {
        auto& g = mg[{from, to}];
        g.insert(g.end(), x->g.begin(), x->g.end());
        auto& h = mh[{from, to}];
        h.insert(h.end(), x->h.begin(), x->h.end());
      }
    });
    auto plain = encoded_gradients(f);
    std::vector<double> hist(bins, 0);
    std::size_t exact = 0, checked = 0, public_h = 0, public_exact = 0;
    for (int s = 0; s < 4; ++s) {
      const auto& traces = f.clients[s]->traces();
      for (std::size_t j = 0; j < traces.size(); ++j) {
        const auto& t = traces[j];
        std::vector<int> honest;
        for (int c = 0; c < 4; ++c)
          if (c != s && c != t.leader)
            honest.push_back(c);
        int a = honest[0], b = honest[1];
        auto partial = [&](bool hess) {
          std::uint64_t sum = 0;
          for (auto id : t.ids)
            if (f.owner[id] == a)
              sum += hess ? plain.h[id] : plain.g[id];
          return sum;
        };
        for (bool hess : {false, true}) {
          auto v = (hess ? mh : mg).at({a, s}).at(j);
          if (hess && !hide_labels) {
            ++public_h;
            public_exact += v == partial(true);
            continue;
          }
          auto l = *f.clients[t.leader]->pair_stream(a, t.mask_key, hess,
                                                     t.mask_word);
          v -= a > t.leader ? l : 0 - l;
          hist[v >> 60] += 1;
          // Sanity of the arithmetic: with B's seed too (n - 1 colluders)
          // the coalition recovers A's exact partial sum, unless A's
          // blinding r is in it.
          auto w = *f.clients[b]->pair_stream(a, t.mask_key, hess, t.mask_word);
          auto rest = v - (a > b ? w : 0 - w);
          if (f.clients[a]->noise_draws().count(t.qid))
            continue;
          ++checked;
          exact += rest == partial(hess);
        }
      }
    }
    BOOST_TEST(checked > 100u);
    BOOST_TEST(exact == checked);
    BOOST_TEST(public_exact == public_h);
    BOOST_TEST((hide_labels ? public_h == 0 : public_h > 300u));
    return hist;
  };
  for (bool hide_labels : {false, true}) {
    BOOST_TEST_CONTEXT("hide_labels " << hide_labels) {
      auto h1 = view(false, hide_labels);
      auto h2 = view(true, hide_labels);
      double n1 = std::accumulate(h1.begin(), h1.end(), 0.0);
      double n2 = std::accumulate(h2.begin(), h2.end(), 0.0);
      BOOST_TEST(n1 > (hide_labels ? 600 : 300));
      // 15 degrees of freedom: P(chi2 > 37.7) = 0.001.
      BOOST_TEST(chi_square(h1, std::vector<double>(bins, n1 / bins)) < 37.7);
      BOOST_TEST(chi_square(h2, std::vector<double>(bins, n2 / bins)) < 37.7);
      // Homogeneity of the two views (15 degrees of freedom).
      double x = 0;
      for (int i = 0; i < bins; ++i) {
        double e1 = (h1[i] + h2[i]) * n1 / (n1 + n2);
        double e2 = (h1[i] + h2[i]) * n2 / (n1 + n2);
        x +=
            (h1[i] - e1) * (h1[i] - e1) / e1 + (h2[i] - e2) * (h2[i] - e2) / e2;
      }
      BOOST_TEST(x < 37.7);
    }
  }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
