// MaskedXGBoost on the vertical XGBoost roles (protocols/plain/ with the
// masked exchange), driven through an in-memory pump: what each party
// sends, and that the noise cancels where the paper says it does. The
// reference for "lossless" is centralized training (learners::train).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>

#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "learners/boost/booster.hpp"
#include "learners/data/synthetic.hpp"
#include "learners/input_error.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/masked/federboost.hpp"
#include "protocols/plain/active_party.hpp"
#include "protocols/plain/passive_party.hpp"
#include "tests/support/columns.hpp"
#include "tests/support/pump.hpp"

using namespace veil;
using namespace veil::protocols::plain;
namespace mx = veil::protocols::masked;
// Inside suite masked, `exchange` is the suite masked/exchange when the
// folder is compiled as one batch (VEIL_UNITY_BUILD).
using plain_exchange = veil::protocols::plain::exchange;
using learners::dataset;
using veil::test::columns;

namespace {

using plain_pump = test::pump<message, envelope, protocols::outcome<outbox>>;

dataset make_data(std::size_t rows, std::size_t features, bool missing) {
  learners::classification_spec s;
  s.rows = rows;
  s.features = features;
  s.informative = features / 2;
  s.redundant = features / 4;
  s.seed = 11;
  auto d = learners::make_classification(s);
  if (missing)
    for (std::size_t i = 0; i < d.rows(); ++i)
      for (std::size_t j = 0; j < d.features(); ++j)
        if ((i * 5 + j * 3) % 13 == 0)
          d.value(i, j) = learners::missing_value;
  return d;
}

struct federation {
  std::unique_ptr<active_party> active;
  std::vector<std::unique_ptr<passive_party>> passives;
  std::vector<std::size_t> bounds;
  /// Every message a passive party got or sent, in delivery order.
  std::vector<message> to_passive, from_passive;
};

federation train_masked(const dataset& train, const learners::booster_params& p,
                        const mx::params& mp, std::size_t parties,
                        std::size_t active_cols, bool record = false,
                        exchange ex = plain_exchange::masked) {
  federation f;
  auto m = train.features();
  f.bounds = {0, active_cols};
  for (std::size_t q = 1; q < parties; ++q)
    f.bounds.push_back(active_cols + (m - active_cols) * q / (parties - 1));
  std::vector<party_id> ids;
  for (std::size_t q = 1; q < parties; ++q) {
    ids.push_back(static_cast<party_id>(q));
    f.passives.push_back(std::make_unique<passive_party>(
        columns(train, f.bounds[q], f.bounds[q + 1], false), ex, mp,
        static_cast<party_id>(q)));
  }
  f.active = std::make_unique<active_party>(
      p, columns(train, 0, active_cols, true), ids, ex, mp);
  plain_pump pump(5);
  pump.add(0, [&](int from, const message& msg) {
    if (record)
      f.from_passive.push_back(msg);
    return f.active->on_message(from, msg);
  });
  for (std::size_t q = 1; q < parties; ++q)
    pump.add(static_cast<int>(q), [&, q](int from, const message& msg) {
      if (record)
        f.to_passive.push_back(msg);
      return f.passives[q - 1]->on_message(from, msg);
    });
  pump.post(0, f.active->start());
  pump.run();
  BOOST_REQUIRE(f.active->training_done());
  return f;
}

learners::booster_params binary(int rounds, int depth) {
  learners::booster_params p;
  p.objective = learners::objective_kind::binary_logistic;
  p.rounds = rounds;
  p.tree.max_depth = depth;
  p.max_bin = 32;
  p.threads = 1;
  return p;
}

/// With σ2 = 0 (the structured noise only) and nothing clipped (μ = 2),
/// the trees are centralized training's: same splits, same leaves.
void require_lossless(const dataset& train, std::size_t parties,
                      std::size_t active_cols,
                      exchange ex = plain_exchange::masked, int rounds = 6) {
  auto p = binary(rounds, 4);
  mx::params mp;
  mp.paillier_bits = 1024; // he: the test's time
  mp.lossless_check = true;
  mp.mu = 2;
  mp.seed = 3;
  mp.epsilon_ap = 0.5; // large noise energy: the cancellation must be exact
  auto f = train_masked(train, p, mp, parties, active_cols, false, ex);
  auto central = learners::train(train, nullptr, p).model;
  const auto& fed = f.active->model();
  BOOST_REQUIRE_EQUAL(fed.trees.size(), central.trees.size());
  for (std::size_t t = 0; t < fed.trees.size(); ++t) {
    const auto& a = fed.trees[t].nodes;
    const auto& b = central.trees[t].nodes;
    BOOST_REQUIRE_MESSAGE(a.size() == b.size(), "tree " << t << " size");
    for (std::size_t i = 0; i < a.size(); ++i) {
      BOOST_REQUIRE(a[i].is_leaf() == b[i].is_leaf());
      BOOST_TEST(a[i].value == b[i].value);
      if (a[i].is_leaf())
        continue;
      auto owner = static_cast<std::size_t>(a[i].owner);
      auto feature = static_cast<std::size_t>(b[i].feature);
      BOOST_TEST_REQUIRE(feature >= f.bounds[owner]);
      BOOST_TEST_REQUIRE(feature < f.bounds[owner + 1]);
      if (owner == 0) {
        BOOST_TEST(a[i].threshold == b[i].threshold);
        continue;
      }
      // The passive party's feature and threshold stay with it.
      BOOST_TEST(std::isnan(a[i].threshold));
      const auto& s = f.passives[owner - 1]->splits().at(
          {static_cast<std::int32_t>(t), static_cast<std::int32_t>(i)});
      BOOST_TEST(static_cast<std::size_t>(s.feature) + f.bounds[owner] ==
                 feature);
      BOOST_TEST(s.threshold == b[i].threshold);
      BOOST_TEST(s.default_left == b[i].default_left);
    }
  }
}

} // namespace

BOOST_AUTO_TEST_SUITE(masked)
BOOST_AUTO_TEST_SUITE(protocol)

// spec §9 item 4.
BOOST_AUTO_TEST_CASE(lossless_without_disturbing_noise) {
  require_lossless(make_data(1500, 8, false), 2, 4);
}

BOOST_AUTO_TEST_CASE(lossless_with_missing_values_and_three_parties) {
  require_lossless(make_data(1200, 9, true), 3, 3);
}

// What the passive party receives: no gradient in the clear; masked
// vectors that change with the noise in every coordinate, whatever the
// data; and the sizes of spec §4.7 (l W n noise values, 2 l n masked).
BOOST_AUTO_TEST_CASE(released_values_carry_the_noise) {
  auto d = make_data(400, 6, false);
  auto p = binary(2, 3);
  mx::params mp;
  mp.epsilon_ap = 8;
  mp.accounting = mx::accounting::per_release;
  mp.sensitivity = mx::sensitivity::record;
  std::vector<std::vector<double>> masked_runs;
  for (std::uint64_t seed : {21u, 22u}) {
    mp.seed = seed;
    auto f = train_masked(d, p, mp, 2, 3, true);
    std::vector<double> all;
    std::size_t noise_msgs = 0;
    for (const auto& m : f.to_passive) {
      if (auto* t = std::get_if<tree_start>(&m))
        BOOST_TEST(t->grads.empty());
      if (auto* s = std::get_if<masked_sums>(&m))
        all.insert(all.end(), s->masked.begin(), s->masked.end());
    }
    std::vector<std::uint32_t> level_rows;
    for (const auto& m : f.from_passive)
      if (auto* x = std::get_if<noise_matrices>(&m)) {
        ++noise_msgs;
        std::size_t l = 0;
        for (auto c : x->candidates)
          l += c;
        BOOST_TEST(x->left_counts.empty()); // energy worst: no counts
        BOOST_TEST(x->noise.size() >= l);   // W = 1, a row per candidate
      }
    BOOST_TEST(noise_msgs > 0u);
    masked_runs.push_back(std::move(all));
  }
  // The first tree's root is the same in both runs (same data, same
  // gradients): every masked coordinate differs, the noise is in all.
  auto n = std::min(masked_runs[0].size(), masked_runs[1].size());
  BOOST_REQUIRE(n > 0u);
  std::size_t same = 0;
  for (std::size_t i = 0; i < std::min<std::size_t>(n, 400 * 10); ++i)
    same += masked_runs[0][i] == masked_runs[1][i];
  BOOST_TEST(same == 0u);
}

// spec §4.7: the noise is l·W·n values per node, the masked vectors 2·l·n.
BOOST_AUTO_TEST_CASE(message_sizes_follow_the_spec) {
  auto d = make_data(300, 4, false);
  auto p = binary(1, 2);
  mx::params mp;
  mp.epsilon_pp = 3; // W = 2 needs ε_PP > 2 ln 2
  mp.w = 2;
  mp.seed = 9;
  mp.energy = mx::energy_mode::adaptive;
  auto f = train_masked(d, p, mp, 2, 2, true);
  std::vector<const noise_matrices*> noise;
  for (const auto& m : f.from_passive)
    if (auto* x = std::get_if<noise_matrices>(&m))
      noise.push_back(x);
  std::vector<const masked_sums*> sums;
  for (const auto& m : f.to_passive)
    if (auto* x = std::get_if<masked_sums>(&m))
      sums.push_back(x);
  BOOST_REQUIRE_EQUAL(noise.size(), sums.size());
  // The root: every row.
  BOOST_REQUIRE_EQUAL(noise[0]->nodes.size(), 1u);
  auto l = noise[0]->candidates[0];
  BOOST_TEST(l > 0u);
  BOOST_TEST(noise[0]->noise.size() == std::size_t{l} * 2 * 300);
  BOOST_TEST(noise[0]->left_counts.size() == l); // adaptive: disclosed
  BOOST_TEST(sums[0]->masked.size() == std::size_t{l} * 2 * 300);
  BOOST_TEST(sums[0]->sums.size() == 2u);
  // What the active party reports it applied: per_step over 1 tree of
  // depth 2 with one passive party, g and h half each.
  auto applied = f.active->applied();
  BOOST_REQUIRE(applied.has_value());
  auto want = mx::calibrate(mp, 300, 1, 2, 1);
  BOOST_TEST(applied->divided_over == 2u);
  BOOST_TEST(applied->epsilon0 == want.release.epsilon);
  BOOST_TEST(applied->rho == want.rho);
}

// XGBoost-LDP without noise scores as plain does: centralized training's
// trees (spec §6.2; its noise is checked below).
BOOST_AUTO_TEST_CASE(xgboost_ldp_without_noise_is_lossless) {
  require_lossless(make_data(1200, 8, true), 2, 4, plain_exchange::xgboost_ldp);
}

// The LDP baselines release, once per tree, every coordinate with the
// noise of its calibration: g (and h for XGBoost-LDP) differ between two
// noise seeds everywhere, by the stated standard deviation.
BOOST_AUTO_TEST_CASE(ldp_baselines_release_noisy_gradients) {
  auto d = make_data(2000, 6, false);
  auto p = binary(2, 3);
  mx::params mp;
  mp.epsilon_ap = 4;
  mp.sensitivity = mx::sensitivity::record;
  for (auto ex :
       {plain_exchange::xgboost_ldp, plain_exchange::fedxgboost_ldp}) {
    bool hessians = ex == plain_exchange::xgboost_ldp;
    auto expected = mx::ldp_calibrate(mp, 2000, 2, 1, hessians);
    std::vector<std::vector<double>> g;
    for (std::uint64_t seed : {31u, 32u}) {
      mp.seed = seed;
      auto f = train_masked(d, p, mp, 2, 3, true, ex);
      BOOST_REQUIRE(f.active->ldp_release().has_value());
      BOOST_TEST(f.active->ldp_release()->stddev == expected.stddev);
      for (const auto& m : f.to_passive)
        if (auto* x = std::get_if<noisy_gradients>(&m)) {
          BOOST_TEST(x->h.size() == (hessians ? 2000u : 0u));
          if (x->tree == 0)
            g.push_back(x->g);
        }
    }
    BOOST_REQUIRE_EQUAL(g.size(), 2u);
    // The difference of two releases of the same g: N(0, 2 s^2) per row.
    double sq = 0;
    std::size_t same = 0;
    for (std::size_t r = 0; r < 2000; ++r) {
      double diff = g[0][r] - g[1][r];
      same += diff == 0;
      sq += diff * diff;
    }
    BOOST_TEST(same == 0u);
    double var = sq / 2000, want = 2 * expected.stddev * expected.stddev;
    // The sample variance of 2000 normals: sd want * sqrt(2/2000).
    BOOST_TEST(std::abs(var - want) < 5 * want * std::sqrt(2.0 / 2000));
  }
}

// FederBoost: the active party trains on the passive party's perturbed
// bucket ids alone; the passive party keeps a bound on its true values for
// every split on its columns (for prediction) and nothing else.
BOOST_AUTO_TEST_CASE(federboost_passive_party_keeps_a_bound_per_split) {
  auto d = make_data(1500, 8, true);
  auto p = binary(4, 4);
  mx::params mp;
  mp.epsilon_pp = 200; // keeps each id with probability 1 - 31 e^-200
  mp.seed = 12;
  auto f = train_masked(d, p, mp, 2, 4, true, plain_exchange::federboost);
  const auto& model = f.active->model();
  std::size_t passive_splits = 0;
  for (const auto& t : model.trees)
    for (const auto& n : t.nodes)
      passive_splits += !n.is_leaf() && n.owner == 1;
  BOOST_TEST(passive_splits > 0u);
  BOOST_TEST(f.passives[0]->splits().size() == passive_splits);
  // Only the ids went to the active party: no gradient, no level request.
  for (const auto& m : f.to_passive)
    BOOST_TEST((std::holds_alternative<setup>(m) ||
                std::holds_alternative<bucket_splits>(m)));
}

// Randomized response keeps an id with e^ε / (e^ε + D - 1) and spreads the
// rest evenly: over 20,000 rows of one bucket, the kept share within 5 sd
// of that, and every other id about equally often.
BOOST_AUTO_TEST_CASE(federboost_randomized_response_law) {
  learners::dataset one(20000, {"x"});
  for (std::size_t r = 0; r < one.rows(); ++r)
    one.value(r, 0) = static_cast<float>(r % 8); // 8 buckets
  auto cuts = learners::quantile_cuts::compute(one, 32, 1);
  learners::bin_matrix bins(one, cuts, 1);
  veil::protocols::crypto::seeded_random rng(77);
  double eps = 1;
  auto ids = mx::perturb_buckets(bins, eps, rng);
  BOOST_REQUIRE_EQUAL(ids.domains.size(), 1u);
  int domain = ids.domains[0];
  BOOST_TEST(domain == 8);
  double keep = mx::keep_probability(eps, domain);
  BOOST_TEST(keep == std::exp(1.0) / (std::exp(1.0) + 7));
  std::vector<double> count(static_cast<std::size_t>(domain), 0);
  std::size_t kept = 0;
  for (std::size_t r = 0; r < one.rows(); ++r) {
    kept += ids.ids[r] == bins.bin(r, 0);
    if (bins.bin(r, 0) == 0)
      count[ids.ids[r]] += 1;
  }
  double n = 20000;
  BOOST_TEST(std::abs(kept / n - keep) < 5 * std::sqrt(keep * (1 - keep) / n));
  // Rows of bucket 0 (2,500): each other id with (1 - keep) / 7.
  double other = 2500 * (1 - keep) / 7;
  for (int id = 1; id < domain; ++id)
    BOOST_TEST(std::abs(count[id] - other) < 5 * std::sqrt(other));
}

// A passive party of MaskedXGBoost never answers plain's split query (a
// feature and a bin of the asker's choosing: any partition it likes).
// HE-XGBoost is plain's histograms of encrypted gradients: centralized
// training's trees (fixed point 2^-40 against float sums: the same splits
// here), and the passive party receives ciphertexts only.
BOOST_AUTO_TEST_CASE(he_xgboost_is_lossless_and_sends_ciphertexts) {
  auto d = make_data(500, 6, true);
  require_lossless(d, 2, 3, plain_exchange::he, 2);
  mx::params mp;
  mp.paillier_bits = 1024;
  mp.seed = 8;
  auto f = train_masked(d, binary(1, 2), mp, 2, 3, true, plain_exchange::he);
  std::size_t encrypted = 0;
  for (const auto& m : f.to_passive) {
    if (auto* t = std::get_if<tree_start>(&m))
      BOOST_TEST(t->grads.empty());
    if (auto* e = std::get_if<encrypted_gradients>(&m)) {
      ++encrypted;
      BOOST_TEST(e->ciphertexts.size() == 500u * 256u); // 1024-bit key
    }
  }
  BOOST_TEST(encrypted == 1u);
}

BOOST_AUTO_TEST_CASE(passive_party_refuses_a_chosen_split) {
  auto d = make_data(100, 4, false);
  mx::params mp;
  passive_party pp(columns(d, 2, 4, false), plain_exchange::masked, mp, 1);
  BOOST_REQUIRE(pp.on_message(0, setup{32, 1, {}, 0, {}}));
  BOOST_REQUIRE(pp.on_message(0, tree_start{0, {}}));
  auto r = pp.on_message(0, split_query{0, -1, {0}, {0}, {3}, {0}});
  BOOST_REQUIRE(!r);
  BOOST_TEST(r.error().reason.find("own best candidate") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(refuses_what_it_cannot_do) {
  auto d = make_data(200, 4, false);
  mx::params mp;
  mp.epsilon_pp = 1;
  mp.w = 2; // 1 <= 2 ln 2
  BOOST_CHECK_THROW(active_party(binary(1, 2), columns(d, 0, 2, true), {1},
                                 plain_exchange::masked, mp),
                    input_error);
  mp.w = 1;
  auto p = binary(1, 2);
  p.objective = learners::objective_kind::reg_squarederror;
  BOOST_CHECK_THROW(
      active_party(p, columns(d, 0, 2, true), {1}, plain_exchange::masked, mp),
      input_error);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
