// The OpBoost roles driven through the in-memory pump (spec opboost §5,
// §9.6): with the identity mechanism the model equals centralized training
// on the pre-processed data; with noise every training row still reaches
// the leaf it reached in rank space; message sizes, whitelists, private
// prediction, and refusals of malformed messages.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "learners/boost/booster.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/data/synthetic.hpp"
#include "learners/input_error.hpp"
#include "messages/opboost.hpp"
#include "messages/wire_size.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/opboost/active_party.hpp"
#include "protocols/opboost/gbdt.hpp"
#include "protocols/opboost/passive_party.hpp"
#include "protocols/opboost/privacy.hpp"
#include "tests/protocols/dp/support.hpp"
#include "tests/support/pump.hpp"

namespace vop = veil::protocols::opboost;
namespace vcrypto = veil::protocols::crypto;
namespace vl = veil::learners;
namespace vt = veil::test;
using vl::dataset;

namespace {

using op_pump = vt::pump<vop::message, vop::envelope,
                         veil::protocols::outcome<vop::outbox>>;

/// Who holds what: Party A's columns (with the labels), each Party B's raw
/// columns and their public mappings.
struct split_data {
  dataset a;
  std::vector<dataset> b;
  std::vector<std::vector<vop::feature_map>> maps;
};

dataset columns(const dataset& d, const std::vector<std::size_t>& cols,
                bool labels) {
  auto part = d.select_columns(cols);
  if (!labels)
    part.labels().clear();
  return part;
}

/// Party A gets `a_cols`, the Party B users the rest, dealt out evenly in
/// order; every Party B column gets the mapping `m`.
split_data deal_split(const dataset& d, const std::vector<std::size_t>& a_cols,
                      std::size_t parties, const vop::feature_map& m) {
  split_data s;
  s.a = columns(d, a_cols, true);
  std::vector<std::size_t> rest;
  for (std::size_t j = 0; j < d.features(); ++j)
    if (std::find(a_cols.begin(), a_cols.end(), j) == a_cols.end())
      rest.push_back(j);
  for (std::size_t q = 0; q < parties; ++q) {
    std::vector<std::size_t> mine(rest.begin() + rest.size() * q / parties,
                                  rest.begin() +
                                      rest.size() * (q + 1) / parties);
    s.b.push_back(columns(d, mine, false));
    s.maps.emplace_back(mine.size(), m);
  }
  return s;
}

/// The centralized view of the same data: A's columns, then each B's
/// columns pre-processed into D⊥, in the protocol's feature order.
dataset centralized(const split_data& s, const vop::domain& dom) {
  std::vector<std::string> names = s.a.feature_names();
  for (const auto& b : s.b)
    names.insert(names.end(), b.feature_names().begin(),
                 b.feature_names().end());
  dataset out(s.a.rows(), names);
  out.labels() = s.a.labels();
  std::size_t col = 0;
  for (std::size_t j = 0; j < s.a.features(); ++j, ++col)
    std::copy(s.a.column(j).begin(), s.a.column(j).end(),
              out.column(col).begin());
  for (std::size_t q = 0; q < s.b.size(); ++q)
    for (std::size_t j = 0; j < s.b[q].features(); ++j, ++col) {
      auto mapped = vop::map_column(s.maps[q][j], dom, s.b[q].column(j));
      for (std::size_t i = 0; i < mapped.size(); ++i)
        out.column(col)[i] = static_cast<float>(mapped[i]);
    }
  return out;
}

struct delivery {
  int from, to;
  std::string name;
  std::size_t bytes;
  vop::message msg;
};

struct federation {
  std::unique_ptr<vop::active_party> a;
  std::vector<std::unique_ptr<vop::passive_party>> b;
  std::vector<delivery> log;

  /// Runs the pump until quiet, logging every delivered message.
  void run(op_pump& pump) {
    pump.add(0, [this](int from, const vop::message& m) {
      log.push_back(
          {from, 0, vop::message_name(m), veil::messages::wire_bytes(m), m});
      return a->on_message(from, m);
    });
    for (std::size_t q = 0; q < b.size(); ++q)
      pump.add(
          static_cast<int>(q + 1), [this, q](int from, const vop::message& m) {
            log.push_back({from, static_cast<int>(q + 1), vop::message_name(m),
                           veil::messages::wire_bytes(m), m});
            return b[q]->on_message(from, m);
          });
    pump.run();
  }
};

/// Wire bytes of a raw block of `n` values of `width` bytes: its length
/// (CAF's varbyte) and the values; the formulas of spec §5.7 count 4 bytes
/// for the length.
std::size_t block(std::size_t n, std::size_t width) {
  return veil::messages::byte_counter::varbyte_size(n) + n * width;
}

federation train(const split_data& s, const vop::params& p,
                 std::uint64_t seed) {
  federation f;
  std::vector<vop::party_id> ids;
  for (std::size_t q = 0; q < s.b.size(); ++q) {
    auto id = static_cast<vop::party_id>(q + 1);
    ids.push_back(id);
    f.b.push_back(std::make_unique<vop::passive_party>(
        id, p, s.b[q], s.maps[q],
        vop::random_engine(vcrypto::seeded_random(seed + 100 + q))));
  }
  f.a = std::make_unique<vop::active_party>(p, s.a, ids);
  op_pump pump(seed);
  for (std::size_t q = 0; q < f.b.size(); ++q)
    pump.post(static_cast<int>(q + 1), f.b[q]->start());
  f.run(pump);
  BOOST_REQUIRE(f.a->training_done());
  return f;
}

/// make_classification; its first two columns become categorical codes
/// 0..6 (Party A's), the others stay numeric.
dataset synthetic(std::size_t rows, std::size_t features, std::size_t classes,
                  std::uint64_t seed) {
  vl::classification_spec s;
  s.rows = rows;
  s.features = features;
  s.informative = features / 2;
  s.redundant = features / 4;
  s.classes = classes;
  s.seed = seed;
  auto d = vl::make_classification(s);
  for (std::size_t j = 0; j < 2; ++j)
    for (auto& x : d.column(j))
      x = std::floor(std::clamp(x, -3.0f, 3.49f) + 3.0f);
  return d;
}

std::pair<dataset, dataset> split_rows(const dataset& d, std::size_t head) {
  std::vector<std::size_t> a(head), b(d.rows() - head);
  std::iota(a.begin(), a.end(), 0);
  std::iota(b.begin(), b.end(), head);
  return {d.select_rows(a), d.select_rows(b)};
}

vop::params identity_params(vop::domain dom, vop::learner_kind learner,
                            vop::threshold_rule rule) {
  vop::params p;
  p.dom = dom;
  p.mechanism.kind = vop::mechanism_kind::identity;
  p.learner = learner;
  p.threshold = rule;
  p.booster = learner == vop::learner_kind::gbdt ? vop::gbdt_defaults()
                                                 : vop::params::paper_booster();
  p.booster.rounds = 12;
  p.booster.threads = 1;
  return p;
}

/// Settings with mechanism `kind` at `epsilon`, partition width `theta`
/// and adjacency `alpha`; everything else default.
vop::params noisy_params(vop::mechanism_kind kind, double epsilon,
                         std::int64_t theta, double alpha) {
  vop::params p;
  p.mechanism.kind = kind;
  p.mechanism.epsilon = epsilon;
  p.mechanism.theta = theta;
  p.mechanism.alpha = alpha;
  return p;
}

/// Same trees node for node: structure, features, leaf values, thresholds.
void require_same_model(const vl::model& got, const vl::model& want) {
  BOOST_REQUIRE_EQUAL(got.trees.size(), want.trees.size());
  BOOST_TEST(got.base_margin == want.base_margin);
  BOOST_TEST(got.feature_names == want.feature_names);
  for (std::size_t t = 0; t < got.trees.size(); ++t) {
    const auto& a = got.trees[t].nodes;
    const auto& b = want.trees[t].nodes;
    BOOST_REQUIRE_MESSAGE(a.size() == b.size(), "tree " << t << " size");
    for (std::size_t i = 0; i < a.size(); ++i) {
      BOOST_REQUIRE_MESSAGE(a[i].is_leaf() == b[i].is_leaf(),
                            "tree " << t << " node " << i);
      BOOST_TEST(a[i].value == b[i].value);
      if (a[i].is_leaf())
        continue;
      BOOST_TEST(a[i].feature == b[i].feature);
      BOOST_TEST(a[i].threshold == b[i].threshold,
                 "tree " << t << " node " << i);
    }
  }
}

/// The raw data the model sees for non-private prediction: A's columns and
/// every B's raw columns, by name.
dataset all_raw(const split_data& s) {
  std::vector<std::string> names = s.a.feature_names();
  for (const auto& b : s.b)
    names.insert(names.end(), b.feature_names().begin(),
                 b.feature_names().end());
  dataset out(s.a.rows(), names);
  std::size_t col = 0;
  for (std::size_t j = 0; j < s.a.features(); ++j, ++col)
    std::copy(s.a.column(j).begin(), s.a.column(j).end(),
              out.column(col).begin());
  for (const auto& b : s.b)
    for (std::size_t j = 0; j < b.features(); ++j, ++col)
      std::copy(b.column(j).begin(), b.column(j).end(),
                out.column(col).begin());
  return out;
}

/// Training rows whose leaf under the value-space model differs from their
/// leaf under the rank-space model, over every tree (spec §9.6). The
/// value-space matrix: A's columns, then each B's desensitized values, in
/// the model's feature order.
std::size_t rank_space_mismatches(const federation& f, const split_data& s) {
  auto values = f.a->training_matrix();
  std::size_t col = s.a.features();
  for (const auto& b : f.b)
    for (std::size_t j = 0; j < b->features(); ++j, ++col)
      for (std::size_t i = 0; i < values.rows(); ++i)
        values.column(col)[i] = static_cast<float>(b->desensitized(j)[i]);
  const auto& ranks = f.a->training_matrix();
  std::size_t mismatches = 0;
  for (std::size_t t = 0; t < f.a->model().trees.size(); ++t)
    for (std::size_t i = 0; i < values.rows(); ++i)
      mismatches += f.a->model().trees[t].leaf_of(values, i) !=
                    f.a->rank_model().trees[t].leaf_of(ranks, i);
  return mismatches;
}

void check_identity_equivalence(const dataset& d, std::size_t head,
                                const std::vector<std::size_t>& a_cols,
                                std::size_t parties, vop::params p,
                                const vop::feature_map& m) {
  auto [train_set, test_set] = split_rows(d, head);
  auto s = deal_split(train_set, a_cols, parties, m);
  auto st = deal_split(test_set, a_cols, parties, m);
  auto central_data = centralized(s, p.dom);
  auto central = p.learner == vop::learner_kind::xgboost
                     ? vl::train(central_data, nullptr, p.booster).model
                     : vop::train_gbdt(central_data, p.booster).model;
  auto f = train(s, p, vt::opboost_seed + 40);
  const auto& model = f.a->model();
  // Every training row reaches the same leaf in every tree: the partition
  // of the rows is the same (ranks keep the order under the identity).
  for (std::size_t t = 0; t < model.trees.size(); ++t)
    for (std::size_t i = 0; i < central_data.rows(); ++i)
      BOOST_REQUIRE_EQUAL(model.trees[t].leaf_of(central_data, i),
                          central.trees[t].leaf_of(central_data, i));
  // Rank space: the same trees with thresholds on ranks.
  BOOST_REQUIRE_EQUAL(f.a->rank_model().trees.size(), central.trees.size());
  auto train_margins = model.predict_margin(central_data);
  auto central_train = central.predict_margin(central_data);
  BOOST_TEST(train_margins == central_train);
  // Upper: v(k+1) is exactly the cut centralized training picks, so the
  // models are equal node for node. Midpoint thresholds differ from the
  // centralized cuts by design; they agree on every value seen in training
  // (all of D⊥ here). Either way the predictions on unseen data agree.
  if (p.threshold == vop::threshold_rule::upper)
    require_same_model(model, central);
  auto got = f.a->predict_margin_plain(all_raw(st));
  auto want = central.predict_margin(centralized(st, p.dom));
  BOOST_TEST(got == want);
}

} // namespace

BOOST_AUTO_TEST_SUITE(opboost)
BOOST_AUTO_TEST_SUITE(protocol)

BOOST_AUTO_TEST_CASE(bounds_without_room_for_float_values_are_refused) {
  // Values are floats: bounds beyond float range, with an infinite span,
  // or with no float strictly between them would map a whole column to
  // one point of the domain without a word.
  auto refused = [](double lo, double hi) {
    veil::protocols::opboost::feature_map m;
    m.lower = lo;
    m.upper = hi;
    try {
      m.validate("x");
    } catch (const veil::input_error& e) {
      return std::string(e.what()).find("feature 'x'") != std::string::npos;
    }
    return false;
  };
  BOOST_TEST(refused(-1e308, 1e308));
  BOOST_TEST(refused(-1e39, 1e39));
  BOOST_TEST(refused(1e-300, 2e-300));
  BOOST_TEST(refused(1.0, 1.0 + 1e-12));
  BOOST_TEST(!refused(17, 90));
  BOOST_TEST(!refused(0, 1e-3));
}

BOOST_AUTO_TEST_CASE(identity_xgboost_equals_centralized) {
  auto d = synthetic(2500, 10, 2, 11);
  vop::feature_map m{-4, 4};
  for (auto rule : {vop::threshold_rule::upper, vop::threshold_rule::midpoint})
    for (std::size_t parties : {1u, 3u})
      check_identity_equivalence(
          d, 2000, {0, 1}, parties,
          identity_params({1, 64}, vop::learner_kind::xgboost, rule), m);
}

BOOST_AUTO_TEST_CASE(identity_gbdt_equals_centralized) {
  auto d = synthetic(2500, 10, 2, 12);
  vop::feature_map m{-4, 4};
  for (auto rule : {vop::threshold_rule::upper, vop::threshold_rule::midpoint})
    check_identity_equivalence(
        d, 2000, {0, 1}, 2,
        identity_params({1, 10}, vop::learner_kind::gbdt, rule), m);
}

BOOST_AUTO_TEST_CASE(identity_multiclass_and_regression_equal_centralized) {
  auto d = synthetic(2000, 9, 3, 13);
  vop::feature_map m{-4, 4};
  auto p = identity_params({0, 40}, vop::learner_kind::xgboost,
                           vop::threshold_rule::upper);
  p.booster.objective = vl::objective_kind::multi_softmax;
  p.booster.num_class = 3;
  p.booster.rounds = 5;
  check_identity_equivalence(d, 1600, {0, 1}, 2, p, m);
  p.learner = vop::learner_kind::gbdt;
  p.booster.tree.lambda = 0;
  check_identity_equivalence(d, 1600, {0, 1}, 2, p, m);

  vl::regression_spec rs;
  rs.rows = 2000;
  rs.features = 6;
  rs.informative = 4;
  rs.seed = 3;
  auto r = vl::make_regression(rs);
  auto q = identity_params({-20, 20}, vop::learner_kind::xgboost,
                           vop::threshold_rule::upper);
  q.booster.objective = vl::objective_kind::reg_squarederror;
  check_identity_equivalence(r, 1500, {}, 3, q, m);
  q.learner = vop::learner_kind::gbdt;
  q.booster.tree.lambda = 0;
  check_identity_equivalence(r, 1500, {5}, 2, q, m);
}

BOOST_AUTO_TEST_CASE(identity_on_adult_equals_centralized) {
  // The paper's split (spec §5.1, §7.2 [R]): Party A holds the label and the
  // categorical columns, two Party B users hold the numeric ones, with
  // public bounds per column, mapped to [1, 10].
  auto path = std::string(VEIL_SHARED_DIR) + "/datasets/adult_train.csv.gz";
  if (!std::filesystem::exists(path)) {
    BOOST_TEST_MESSAGE("skipped: no " << path);
    return;
  }
  vl::read_options o;
  o.label = "label";
  auto d = vl::read_csv(path, o);
  auto col = [&](const char* name) {
    return static_cast<std::size_t>(d.feature_index(name));
  };
  std::vector<std::size_t> a_cols = {
      col("workclass"),  col("education"),    col("marital_status"),
      col("occupation"), col("relationship"), col("race"),
      col("sex"),        col("capital_loss"), col("native_country")};
  auto [train_set, test_set] = split_rows(d, 26000);
  auto p = identity_params({1, 10}, vop::learner_kind::xgboost,
                           vop::threshold_rule::upper);
  p.booster.rounds = 20;
  auto s = deal_split(train_set, a_cols, 2, {});
  auto st = deal_split(test_set, a_cols, 2, {});
  // Public bounds: age, fnlwgt | education_num, capital_gain, hours.
  s.maps[0] = {{17, 90}, {12285, 1484705}};
  s.maps[1] = {{1, 16}, {0, 99999}, {1, 99}};
  st.maps = s.maps;
  BOOST_REQUIRE_EQUAL(s.b[0].feature_names()[0], "age");
  auto central_data = centralized(s, p.dom);
  auto central = vl::train(central_data, nullptr, p.booster).model;
  auto f = train(s, p, vt::opboost_seed + 41);
  require_same_model(f.a->model(), central);
  BOOST_TEST(f.a->predict_margin_plain(all_raw(st)) ==
             central.predict_margin(centralized(st, p.dom)));
}

BOOST_AUTO_TEST_CASE(noisy_models_route_training_rows_as_in_rank_space) {
  // spec §9.6: after threshold replacement each training row's leaf under
  // the value-space model (desensitized values) equals its leaf under the
  // rank-space model (ranks), for every tree, every mechanism and rule.
  auto d = synthetic(1500, 10, 2, 14);
  vop::feature_map m{-4, 4};
  auto s = deal_split(d, {0, 1}, 2, m);
  for (auto kind :
       {vop::mechanism_kind::global_map, vop::mechanism_kind::local_map,
        vop::mechanism_kind::adj_map, vop::mechanism_kind::piecewise})
    for (auto rule :
         {vop::threshold_rule::midpoint, vop::threshold_rule::upper}) {
      auto p = noisy_params(kind, 0.64, 2, 2);
      p.threshold = rule;
      p.booster.rounds = 10;
      p.booster.threads = 1;
      auto f = train(s, p, vt::opboost_seed + 42);
      BOOST_TEST(rank_space_mismatches(f, s) == 0u,
                 vop::to_string(kind) << " " << vop::to_string(rule));
      BOOST_TEST(!f.a->splits().empty());
    }
}

BOOST_AUTO_TEST_CASE(quantile_bins_on_a_large_domain_keep_the_invariant) {
  // D = [1, 5000] with max_bin 16: rank columns have more distinct values
  // than bins, so Party A splits between quantile cuts (XGBoost's hist
  // method); the requested ranks still bracket each cut.
  auto d = synthetic(1500, 8, 2, 22);
  auto s = deal_split(d, {0, 1}, 2, {-4, 4});
  vop::params p;
  p.dom = {1, 5000};
  p.mechanism.kind = vop::mechanism_kind::global_map;
  p.mechanism.epsilon = 0.05;
  p.booster.max_bin = 16;
  p.booster.rounds = 8;
  p.booster.threads = 1;
  auto f = train(s, p, vt::opboost_seed + 48);
  BOOST_TEST(rank_space_mismatches(f, s) == 0u);
  BOOST_TEST(!f.a->splits().empty());
}

BOOST_AUTO_TEST_CASE(messages_have_the_sizes_of_spec_5_7) {
  // M1 = 4 N r + framing, M2 = 4 |Q| + framing, M3 = 8 |Q| + framing;
  // Party A sends nothing but split requests (no labels, gradients or
  // hessians); every Party B sends M0, M1 and M3 once.
  auto d = synthetic(1200, 10, 2, 15);
  auto s = deal_split(d, {0, 1}, 3, {-4, 4});
  auto p = noisy_params(vop::mechanism_kind::adj_map, 0.08, 4, 10);
  p.mechanism.sampler = vop::sampler_kind::discrete_laplace;
  p.booster.rounds = 8;
  p.booster.threads = 1;
  auto f = train(s, p, vt::opboost_seed + 43);
  std::map<int, std::multiset<std::string>> sent_by;
  for (const auto& e : f.log) {
    sent_by[e.from].insert(e.name);
    if (e.from == 0) {
      BOOST_TEST(std::holds_alternative<vop::split_request>(e.msg));
      const auto& q = std::get<vop::split_request>(e.msg);
      auto r = f.b[static_cast<std::size_t>(e.to - 1)]->features();
      BOOST_TEST(e.bytes == block(r + 1, 4) + block(q.ranks.size(), 4));
      // Two ranks per split at most, before de-duplication.
      BOOST_TEST(q.ranks.size() <= 2 * f.a->splits().size());
    } else if (auto* m1 = std::get_if<vop::ranks>(&e.msg)) {
      auto r = f.b[static_cast<std::size_t>(e.from - 1)]->features();
      BOOST_TEST(e.bytes == 4 + block(1200 * r, 4));
      BOOST_TEST(m1->values.size() == 1200 * r);
    } else if (auto* m3 = std::get_if<vop::split_values>(&e.msg)) {
      BOOST_TEST(e.bytes == block(m3->values.size(), 8));
    }
  }
  for (int q = 1; q <= 3; ++q)
    BOOST_TEST((sent_by[q] == std::multiset<std::string>{
                                  "M0 schema", "M1 ranks", "M3 split_values"}));
  BOOST_TEST(sent_by[0].size() == 3u);
}

BOOST_AUTO_TEST_CASE(delivery_order_does_not_matter) {
  auto d = synthetic(1000, 10, 2, 16);
  auto s = deal_split(d, {0, 1}, 3, {-4, 4});
  vop::params p;
  p.mechanism.kind = vop::mechanism_kind::global_map;
  p.booster.rounds = 6;
  p.booster.threads = 1;
  // Same engines (seeds of the parties), different pump orders.
  auto f1 = train(s, p, vt::opboost_seed + 44);
  federation f2;
  std::vector<vop::party_id> ids;
  for (std::size_t q = 0; q < s.b.size(); ++q) {
    ids.push_back(static_cast<vop::party_id>(q + 1));
    f2.b.push_back(std::make_unique<vop::passive_party>(
        ids.back(), p, s.b[q], s.maps[q],
        vop::random_engine(
            vcrypto::seeded_random(vt::opboost_seed + 44 + 100 + q))));
  }
  f2.a = std::make_unique<vop::active_party>(p, s.a, ids);
  op_pump pump(999);
  for (std::size_t q = s.b.size(); q-- > 0;)
    pump.post(static_cast<int>(q + 1), f2.b[q]->start());
  f2.run(pump);
  require_same_model(f2.a->model(), f1.a->model());
}

BOOST_AUTO_TEST_CASE(private_prediction) {
  auto d = synthetic(1500, 10, 2, 17);
  auto [train_set, test_set] = split_rows(d, 1200);
  auto s = deal_split(train_set, {0, 1}, 2, {-4, 4});
  auto st = deal_split(test_set, {0, 1}, 2, {-4, 4});
  for (auto kind :
       {vop::mechanism_kind::identity, vop::mechanism_kind::local_map}) {
    vop::params p;
    p.mechanism.kind = kind;
    p.mechanism.epsilon = 1.28;
    p.booster.rounds = 6;
    p.booster.threads = 1;
    auto f = train(s, p, vt::opboost_seed + 45);
    for (std::size_t q = 0; q < f.b.size(); ++q)
      f.b[q]->set_predict_data(st.b[q]);
    for (int batch = 0; batch < 2; ++batch) {
      op_pump pump(vt::opboost_seed + 46 + batch);
      pump.post(0, f.a->start_private_predict(st.a));
      f.log.clear();
      f.run(pump);
      BOOST_REQUIRE(f.a->predict_done());
      // M4: 8 bytes per value plus batch and row count; values, never
      // ranks.
      for (const auto& e : f.log)
        if (auto* m4 = std::get_if<vop::predict_values>(&e.msg))
          BOOST_TEST(e.bytes == 8 + block(m4->values.size(), 8));
      auto margins = f.a->predicted_margins();
      BOOST_TEST(margins == f.a->model().predict_margin(f.a->predict_matrix()));
      if (kind == vop::mechanism_kind::identity) {
        // No noise: private and non-private prediction agree.
        BOOST_TEST(margins == f.a->predict_margin_plain(all_raw(st)));
      } else {
        // Local-map keeps every value in its partition of [1, 10].
        auto& pm = f.a->predict_matrix();
        for (std::size_t j = 2; j < pm.features(); ++j)
          for (float v : pm.column(j))
            BOOST_TEST((v >= 1 && v <= 10));
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(active_party_refuses_malformed_messages) {
  auto d = synthetic(300, 6, 2, 18);
  auto s = deal_split(d, {0, 1}, 2, {-4, 4});
  vop::params p;
  p.booster.rounds = 3;
  p.booster.threads = 1;
  vop::passive_party b1(1, p, s.b[0], s.maps[0],
                        vop::random_engine(vcrypto::seeded_random(1)));
  vop::passive_party b2(2, p, s.b[1], s.maps[1],
                        vop::random_engine(vcrypto::seeded_random(2)));
  auto out1 = b1.start();
  auto out2 = b2.start();
  const auto& schema1 = std::get<vop::schema>(out1[0].msg);
  const auto& ranks1 = std::get<vop::ranks>(out1[1].msg);
  auto fresh = [&] {
    return std::make_unique<vop::active_party>(
        p, s.a, std::vector<vop::party_id>{1, 2});
  };
  auto refused = [](const veil::protocols::outcome<vop::outbox>& r,
                    const std::string& step) {
    BOOST_TEST(!r);
    if (!r)
      BOOST_TEST(r.error().step == step, r.error().reason);
  };
  {
    auto a = fresh();
    refused(a->on_message(7, schema1), "M0 schema"); // unknown party
    refused(a->on_message(1, ranks1), "M1 ranks");   // before the schema
    auto bad = schema1;
    bad.rows = 299;
    refused(a->on_message(1, bad), "M0 schema");
    bad = schema1;
    bad.lower.pop_back();
    refused(a->on_message(1, bad), "M0 schema");
    bad = schema1;
    bad.names[0] = "f0"; // Party A's column
    refused(a->on_message(1, bad), "M0 schema");
    bad = schema1;
    bad.domain_hi = 11;
    refused(a->on_message(1, bad), "M0 schema");
    bad = schema1;
    bad.kinds[0] = 9;
    refused(a->on_message(1, bad), "M0 schema");
    BOOST_TEST(static_cast<bool>(a->on_message(1, schema1)));
    refused(a->on_message(1, schema1), "M0 schema"); // duplicate
    auto r = ranks1;
    r.values.pop_back();
    refused(a->on_message(1, r), "M1 ranks");
    r = ranks1;
    r.values[0] = -1;
    refused(a->on_message(1, r), "M1 ranks");
    r = ranks1;
    for (auto& v : r.values)
      v = v >= 1 ? v + 1 : v; // skips rank 1: not dense
    refused(a->on_message(1, r), "M1 ranks");
    refused(a->on_message(1, vop::split_values{{1.0}}), "M3 split_values");
    refused(a->on_message(1, vop::split_request{}), "M2 split_request");
    // A name clash across Party B users.
    auto clash = std::get<vop::schema>(out2[0].msg);
    clash.names[0] = schema1.names[0];
    refused(a->on_message(2, clash), "M0 schema");
  }
  // A full round, then bad answers to the split request.
  auto a = fresh();
  BOOST_TEST(static_cast<bool>(a->on_message(1, out1[0].msg)));
  BOOST_TEST(static_cast<bool>(a->on_message(1, out1[1].msg)));
  BOOST_TEST(static_cast<bool>(a->on_message(2, out2[0].msg)));
  auto requests = a->on_message(2, out2[1].msg);
  BOOST_REQUIRE(static_cast<bool>(requests));
  BOOST_REQUIRE_EQUAL(requests->size(), 2u);
  const auto& req1 = std::get<vop::split_request>((*requests)[0].msg);
  auto answer = b1.on_message(0, req1);
  BOOST_REQUIRE(static_cast<bool>(answer));
  auto values = std::get<vop::split_values>((*answer)[0].msg);
  if (!values.values.empty()) {
    auto bad = values;
    bad.values.push_back(1);
    refused(a->on_message(1, bad), "M3 split_values");
    bad = values;
    bad.values[0] = std::nan("");
    refused(a->on_message(1, bad), "M3 split_values");
    bad = values;
    bad.values[0] = 0.5;
    refused(a->on_message(1, bad), "M3 split_values");
    if (req1.offsets[1] >= 2) { // two values of feature 0: reverse them
      bad = values;
      std::swap(bad.values[0], bad.values[1]);
      refused(a->on_message(1, bad), "M3 split_values");
    }
  }
  BOOST_TEST(static_cast<bool>(a->on_message(1, values)));
  refused(a->on_message(1, values), "M3 split_values"); // duplicate
  const auto& req2 = std::get<vop::split_request>((*requests)[1].msg);
  auto answer2 = b2.on_message(0, req2);
  BOOST_TEST(static_cast<bool>(a->on_message(2, (*answer2)[0].msg)));
  BOOST_TEST(a->training_done());
  // Prediction answers: wrong batch, rows, length.
  auto asks = a->start_private_predict(s.a);
  const auto& ask = std::get<vop::predict_request>(asks[0].msg);
  vop::predict_values pv{
      ask.batch, ask.rows,
      std::vector<double>(ask.rows * s.b[0].features(), 1.0)};
  auto bad = pv;
  bad.batch += 1;
  refused(a->on_message(1, bad), "M4 predict_values");
  bad = pv;
  bad.rows -= 1;
  refused(a->on_message(1, bad), "M4 predict_values");
  bad = pv;
  bad.values.pop_back();
  refused(a->on_message(1, bad), "M4 predict_values");
  bad = pv;
  bad.values[3] = std::numeric_limits<double>::infinity();
  refused(a->on_message(1, bad), "M4 predict_values");
  BOOST_TEST(static_cast<bool>(a->on_message(1, pv)));
  refused(a->on_message(1, pv), "M4 predict_values"); // duplicate
}

BOOST_AUTO_TEST_CASE(passive_party_refuses_malformed_messages) {
  auto d = synthetic(200, 6, 2, 19);
  auto s = deal_split(d, {0, 1}, 1, {-4, 4});
  vop::params p;
  vop::passive_party b(1, p, s.b[0], s.maps[0],
                       vop::random_engine(vcrypto::seeded_random(3)));
  auto refused = [](const veil::protocols::outcome<vop::outbox>& r,
                    const std::string& step) {
    BOOST_TEST(!r);
    if (!r)
      BOOST_TEST(r.error().step == step, r.error().reason);
  };
  vop::split_request ok;
  ok.offsets.assign(s.b[0].features() + 1, 0);
  refused(b.on_message(0, ok), "M2 split_request"); // before start
  auto out = b.start();
  BOOST_CHECK_THROW(b.start(), std::logic_error);   // a host bug
  refused(b.on_message(2, ok), "M2 split_request"); // not from Party A
  refused(b.on_message(0, std::get<vop::schema>(out[0].msg)), "M0 schema");
  auto bad = ok;
  bad.offsets.pop_back();
  refused(b.on_message(0, bad), "M2 split_request");
  bad = ok;
  bad.ranks = {0};
  refused(b.on_message(0, bad), "M2 split_request"); // offsets do not span
  for (std::size_t k = 1; k < bad.offsets.size(); ++k)
    bad.offsets[k] = 1;
  bad.ranks = {999};
  refused(b.on_message(0, bad), "M2 split_request"); // unknown rank
  for (std::size_t k = 1; k < bad.offsets.size(); ++k)
    bad.offsets[k] = 2;
  bad.ranks = {1, 0};
  refused(b.on_message(0, bad), "M2 split_request"); // not increasing
  bad.offsets[1] = 3;
  bad.ranks = {0, 1};
  refused(b.on_message(0, bad), "M2 split_request"); // offsets decrease
  refused(b.on_message(0, vop::predict_request{1, 5}), "predict_request");
  BOOST_TEST(static_cast<bool>(b.on_message(0, ok)));
  refused(b.on_message(0, ok), "M2 split_request"); // answered once
  BOOST_TEST(b.answered());
}

BOOST_AUTO_TEST_CASE(bad_configurations_throw_before_anything_is_sent) {
  auto d = synthetic(100, 6, 2, 20);
  auto s = deal_split(d, {0, 1}, 1, {-4, 4});
  vop::params p;
  auto engine = [] { return vop::random_engine(vcrypto::seeded_random(4)); };
  BOOST_CHECK_THROW(vop::passive_party(0, p, s.b[0], s.maps[0], engine()),
                    veil::input_error);
  auto maps = s.maps[0];
  maps.pop_back();
  BOOST_CHECK_THROW(vop::passive_party(1, p, s.b[0], maps, engine()),
                    veil::input_error);
  maps = s.maps[0];
  maps[0].upper = maps[0].lower;
  BOOST_CHECK_THROW(vop::passive_party(1, p, s.b[0], maps, engine()),
                    veil::input_error);
  auto q = p;
  q.dom = {1, 1 << 23};
  BOOST_CHECK_THROW(vop::passive_party(1, q, s.b[0], s.maps[0], engine()),
                    veil::input_error);
  BOOST_CHECK_THROW(vop::active_party(p, s.b[0], {1}), veil::input_error);
  BOOST_CHECK_THROW(vop::active_party(p, s.a, {1, 1}), veil::input_error);
  BOOST_CHECK_THROW(vop::active_party(p, s.a, {}), veil::input_error);
}

BOOST_AUTO_TEST_CASE(budget_split_and_privacy_report) {
  auto d = synthetic(200, 8, 2, 21);
  auto s = deal_split(d, {0, 1}, 2, {-4, 4});
  auto p = noisy_params(vop::mechanism_kind::adj_map, 0.6, 2, 2);
  p.budget = vop::budget_split::split;
  p.booster.rounds = 2;
  auto f = train(s, p, vt::opboost_seed + 47);
  // 3 features per party: each gets eps / 3.
  auto spent = f.b[0]->spent();
  BOOST_REQUIRE_EQUAL(spent.entries().size(), 3u);
  BOOST_TEST(spent.entries()[0].cost.epsilon == 0.2,
             boost::test_tools::tolerance(1e-12));
  BOOST_TEST(
      spent.total(veil::protocols::dp::guarantee::partition_dldp).epsilon ==
          0.6,
      boost::test_tools::tolerance(1e-12));
  BOOST_TEST(f.a->spent().entries().size() == 6u);
  auto report = f.a->privacy_report();
  BOOST_TEST(report.find(vop::partition_budget_note) != std::string::npos);
  BOOST_TEST(report.find("exact worst-case privacy loss") != std::string::npos);
  BOOST_TEST(report.find("t = 1: ") != std::string::npos);
  BOOST_TEST_MESSAGE(report);
  // The real loss at t = 1 exceeds the nominal eps for Adj-map (spec §2.5).
  BOOST_TEST(vop::worst_case_loss(p.mechanism, p.dom, 1) > p.mechanism.epsilon);
  p.mechanism.kind = vop::mechanism_kind::identity;
  BOOST_TEST(vop::privacy_report(p, {{"x"}}).find("NO protection") !=
             std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
