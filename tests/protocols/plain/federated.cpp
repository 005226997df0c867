// Plaintext vertical federated XGBoost, driven through an in-memory pump:
// with one table's columns dealt out in order to the parties, the federated
// model must equal centralized training's split for split, and federated
// prediction must give the same margins, bit for bit.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <numeric>

#include "learners/boost/booster.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/data/synthetic.hpp"
#include "protocols/plain/active_party.hpp"
#include "protocols/plain/passive_party.hpp"
#include "tests/support/columns.hpp"
#include "tests/support/pump.hpp"

using namespace veil;
using namespace veil::protocols::plain;
using learners::dataset;
using veil::test::columns;

namespace {

using plain_pump = test::pump<message, envelope, protocols::outcome<outbox>>;

struct federation {
  std::unique_ptr<active_party> active;
  std::vector<std::unique_ptr<passive_party>> passives;
  std::vector<std::size_t>
      bounds; // party p holds columns [bounds[p], bounds[p+1])
};

/// Deals the columns of `train` out to `parties` parties in order (party 0
/// gets `active_cols` of them) and trains.
federation train_federated(const dataset& train,
                           const learners::booster_params& p,
                           std::size_t parties, std::size_t active_cols,
                           std::uint64_t seed, const dataset* valid = nullptr) {
  federation f;
  auto m = train.features();
  f.bounds = {0, active_cols};
  for (std::size_t q = 1; q < parties; ++q)
    f.bounds.push_back(active_cols + (m - active_cols) * q / (parties - 1));
  std::vector<party_id> ids;
  for (std::size_t q = 1; q < parties; ++q) {
    ids.push_back(static_cast<party_id>(q));
    f.passives.push_back(std::make_unique<passive_party>(
        columns(train, f.bounds[q], f.bounds[q + 1], false)));
  }
  f.active = std::make_unique<active_party>(
      p, columns(train, 0, active_cols, true), ids);
  if (valid) {
    f.active->evaluate_rounds_on(columns(*valid, 0, active_cols, true));
    for (std::size_t q = 1; q < parties; ++q)
      f.passives[q - 1]->set_predict_data(
          columns(*valid, f.bounds[q], f.bounds[q + 1], false));
  }
  plain_pump pump(seed);
  pump.add(0, [&](int from, const message& msg) {
    return f.active->on_message(from, msg);
  });
  for (std::size_t q = 1; q < parties; ++q)
    pump.add(static_cast<int>(q), [&, q](int from, const message& msg) {
      return f.passives[q - 1]->on_message(from, msg);
    });
  pump.post(0, f.active->start());
  pump.run();
  BOOST_REQUIRE(f.active->training_done());
  return f;
}

std::vector<double> predict_federated(federation& f, const dataset& test,
                                      std::uint64_t seed) {
  for (std::size_t q = 1; q < f.bounds.size() - 1; ++q)
    f.passives[q - 1]->set_predict_data(
        columns(test, f.bounds[q], f.bounds[q + 1], false));
  plain_pump pump(seed);
  pump.add(0, [&](int from, const message& msg) {
    return f.active->on_message(from, msg);
  });
  for (std::size_t q = 1; q < f.bounds.size() - 1; ++q)
    pump.add(static_cast<int>(q), [&, q](int from, const message& msg) {
      return f.passives[q - 1]->on_message(from, msg);
    });
  pump.post(0, f.active->start_predict(columns(test, 0, f.bounds[1], false)));
  pump.run();
  BOOST_REQUIRE(f.active->predict_done());
  return f.active->predicted_margins();
}

/// The threshold of a federated split, from whichever party owns it.
float threshold_of(const federation& f, std::size_t tree, std::int32_t node) {
  const auto& n = f.active->model().trees[tree].nodes[node];
  if (n.owner == 0)
    return n.threshold;
  return f.passives[n.owner - 1]
      ->splits()
      .at({static_cast<std::int32_t>(tree), node})
      .threshold;
}

void require_same_model(const federation& f, const learners::model& central) {
  const auto& fed = f.active->model();
  BOOST_REQUIRE_EQUAL(fed.trees.size(), central.trees.size());
  BOOST_TEST(fed.base_margin == central.base_margin);
  for (std::size_t t = 0; t < fed.trees.size(); ++t) {
    const auto& a = fed.trees[t].nodes;
    const auto& b = central.trees[t].nodes;
    BOOST_REQUIRE_MESSAGE(a.size() == b.size(), "tree " << t << " size");
    BOOST_TEST(fed.trees[t].target == central.trees[t].target);
    for (std::size_t i = 0; i < a.size(); ++i) {
      BOOST_REQUIRE_MESSAGE(a[i].is_leaf() == b[i].is_leaf(),
                            "tree " << t << " node " << i);
      BOOST_TEST(a[i].value == b[i].value);
      if (a[i].is_leaf())
        continue;
      BOOST_TEST(a[i].feature == b[i].feature);
      BOOST_TEST(a[i].default_left == b[i].default_left);
      BOOST_TEST(threshold_of(f, t, static_cast<std::int32_t>(i)) ==
                 b[i].threshold);
      // The owner is the party whose columns hold the feature.
      auto owner = static_cast<std::size_t>(a[i].owner);
      BOOST_TEST(static_cast<std::size_t>(b[i].feature) >= f.bounds[owner]);
      BOOST_TEST(static_cast<std::size_t>(b[i].feature) < f.bounds[owner + 1]);
    }
  }
}

/// make_classification with half the features informative.
learners::classification_spec spec(std::size_t rows, std::size_t features,
                                   std::uint64_t seed) {
  learners::classification_spec s;
  s.rows = rows;
  s.features = features;
  s.informative = features / 2;
  s.redundant = features / 4;
  s.seed = seed;
  return s;
}

dataset with_missing(dataset d) {
  for (std::size_t i = 0; i < d.rows(); ++i)
    for (std::size_t j = 0; j < d.features(); ++j)
      if ((i * 5 + j * 3) % 13 == 0)
        d.value(i, j) = learners::missing_value;
  return d;
}

std::pair<dataset, dataset> split_rows(const dataset& d, std::size_t head) {
  std::vector<std::size_t> a(head), b(d.rows() - head);
  std::iota(a.begin(), a.end(), 0);
  std::iota(b.begin(), b.end(), head);
  return {d.select_rows(a), d.select_rows(b)};
}

void check_equivalence(const dataset& train, const dataset& test,
                       learners::booster_params p, std::size_t parties,
                       std::size_t active_cols) {
  p.threads = 1;
  auto central = learners::train(train, nullptr, p).model;
  auto f = train_federated(train, p, parties, active_cols, 7);
  require_same_model(f, central);
  auto margins = predict_federated(f, test, 8);
  auto expected = central.predict_margin(test);
  BOOST_REQUIRE_EQUAL(margins.size(), expected.size());
  for (std::size_t i = 0; i < margins.size(); ++i)
    BOOST_REQUIRE_EQUAL(margins[i], expected[i]);
}

} // namespace

BOOST_AUTO_TEST_SUITE(plain)
BOOST_AUTO_TEST_SUITE(federated)

BOOST_AUTO_TEST_CASE(adult_three_parties_equals_centralized) {
  auto path = std::string(VEIL_SHARED_DIR) + "/datasets/adult_train.csv.gz";
  if (!std::filesystem::exists(path)) {
    BOOST_TEST_MESSAGE("skipped: no " << path);
    return;
  }
  learners::read_options o;
  o.label = "label";
  auto d = learners::read_csv(path, o);
  auto [train, test] = split_rows(d, 26000);
  learners::booster_params p;
  p.rounds = 20;
  p.tree.max_depth = 6;
  check_equivalence(train, test, p, 3, 5);
}

BOOST_AUTO_TEST_CASE(missing_values_and_four_parties) {
  auto s = spec(3000, 12, 17);
  auto d = with_missing(learners::make_classification(s));
  auto [train, test] = split_rows(d, 2400);
  learners::booster_params p;
  p.rounds = 8;
  p.tree.max_depth = 5;
  p.tree.gamma = 0.5;
  check_equivalence(train, test, p, 4, 3);
}

BOOST_AUTO_TEST_CASE(active_party_without_features) {
  learners::regression_spec s;
  s.rows = 2000;
  s.features = 6;
  s.informative = 4;
  s.seed = 3;
  auto d = learners::make_regression(s);
  auto [train, test] = split_rows(d, 1500);
  learners::booster_params p;
  p.objective = learners::objective_kind::reg_squarederror;
  p.rounds = 6;
  check_equivalence(train, test, p, 3, 0);
}

BOOST_AUTO_TEST_CASE(multiclass_and_decision_tables) {
  auto s = spec(2000, 9, 5);
  s.classes = 3;
  auto d = learners::make_classification(s);
  auto [train, test] = split_rows(d, 1600);
  learners::booster_params p;
  p.objective = learners::objective_kind::multi_softmax;
  p.num_class = 3;
  p.rounds = 4;
  p.tree.max_depth = 4;
  check_equivalence(train, test, p, 3, 3);
  p.tree.oblivious = true;
  check_equivalence(train, test, p, 3, 3);
}

// Per-round evaluation through federated prediction of each round's trees:
// the same history as centralized training's validation metrics, and early
// stopping at the same round with the same trees kept.
void check_rounds_evaluated(const dataset& train, const dataset& valid,
                            learners::booster_params p, bool must_stop) {
  p.threads = 1;
  auto central = learners::train(train, &valid, p);
  BOOST_REQUIRE_EQUAL(central.early_stop.stopped, must_stop);
  auto f = train_federated(train, p, 3, 2, 11, &valid);
  require_same_model(f, central.model);
  const auto& fed = f.active->history();
  BOOST_REQUIRE_EQUAL(fed.size(), central.history.size());
  for (std::size_t r = 0; r < fed.size(); ++r) {
    BOOST_TEST(fed[r].round == central.history[r].round);
    BOOST_TEST(fed[r].valid == central.history[r].valid);
  }
  const auto& e = f.active->early_stop();
  BOOST_TEST(e.stopped == central.early_stop.stopped);
  BOOST_TEST(e.best_round == central.early_stop.best_round);
  BOOST_TEST(e.last_round == central.early_stop.last_round);
  BOOST_TEST(e.metric == central.early_stop.metric);
}

BOOST_AUTO_TEST_CASE(rounds_evaluated_and_stopped_as_centralized) {
  auto s = spec(1200, 8, 29);
  s.flip_y = 0.3; // noisy labels overfit: early stopping must fire
  auto d = learners::make_classification(s);
  auto [train, valid] = split_rows(d, 900);
  learners::booster_params p;
  p.rounds = 60;
  p.tree.max_depth = 6;
  p.tree.eta = 0.5;
  check_rounds_evaluated(train, valid, p, false);
  p.early_stopping_rounds = 4;
  check_rounds_evaluated(train, valid, p, true);
  // Multi-class: a round is one tree per class.
  s.classes = 3;
  d = learners::make_classification(s);
  std::tie(train, valid) = split_rows(d, 900);
  p.objective = learners::objective_kind::multi_softmax;
  p.num_class = 3;
  check_rounds_evaluated(train, valid, p, true);
}

BOOST_AUTO_TEST_CASE(delivery_order_does_not_matter) {
  auto s = spec(1500, 8, 23);
  auto d = learners::make_classification(s);
  learners::booster_params p;
  p.rounds = 4;
  p.threads = 1;
  auto a = train_federated(d, p, 4, 2, 1);
  auto b = train_federated(d, p, 4, 2, 99);
  const auto& ta = a.active->model().trees;
  const auto& tb = b.active->model().trees;
  BOOST_REQUIRE_EQUAL(ta.size(), tb.size());
  for (std::size_t t = 0; t < ta.size(); ++t)
    for (std::size_t i = 0; i < ta[t].nodes.size(); ++i) {
      BOOST_TEST(ta[t].nodes[i].feature == tb[t].nodes[i].feature);
      BOOST_TEST(ta[t].nodes[i].value == tb[t].nodes[i].value);
    }
}

BOOST_AUTO_TEST_CASE(passive_party_refuses_bad_input) {
  auto s = spec(200, 4, 1);
  auto d = learners::make_classification(s);
  d.labels().clear();
  passive_party party(d);
  // Nothing before setup.
  BOOST_TEST(!party.on_message(0, tree_start{0, {}}));
  BOOST_TEST(!party.on_message(1, setup{}));
  BOOST_REQUIRE(party.on_message(0, setup{256, 1, {}, 0, {}}));
  // Gradient count must match the rows.
  BOOST_TEST(
      !party.on_message(0, tree_start{0, std::vector<learners::grad_pair>(3)}));
  BOOST_REQUIRE(party.on_message(
      0, tree_start{0, std::vector<learners::grad_pair>(200)}));
  // A split with the wrong number of bits, a histogram of an unknown node.
  level_request bad;
  bad.tree = 0;
  bad.splits.push_back({0, 1, 2, std::vector<std::uint8_t>(3)});
  BOOST_TEST(!party.on_message(0, bad));
  level_request unknown;
  unknown.tree = 0;
  unknown.build = {5};
  BOOST_TEST(!party.on_message(0, unknown));
  split_query q;
  q.tree = 0;
  q.depth = 0;
  q.nodes = {0};
  q.features = {9};
  q.bins = {0};
  q.default_left = {0};
  BOOST_TEST(!party.on_message(0, q));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
