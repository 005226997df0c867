// End-to-end checks of centralized boosting against independent references:
// XGBoost 1.7.4's own numbers on the shared datasets, and properties that
// hold whatever the implementation (loss decreases, early stopping keeps the
// best rounds, a saved model predicts the same).
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <numeric>

#include "learners/boost/booster.hpp"
#include "learners/boost/early_stopping.hpp"
#include "learners/boost/importance.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/data/synthetic.hpp"
#include "learners/input_error.hpp"
#include "learners/metrics/metrics.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil::learners;
namespace fs = std::filesystem;

namespace {

std::string shared_file(const std::string& name) {
  return std::string(VEIL_SHARED_DIR) + "/datasets/" + name;
}

bool have(const std::string& path) {
  if (fs::exists(path))
    return true;
  BOOST_TEST_MESSAGE("skipped: " << path << " is not there");
  return false;
}

dataset read(const std::string& name) {
  read_options o;
  o.label = "label";
  return read_csv(shared_file(name), o);
}

dataset small_classification(std::size_t rows, std::uint64_t seed) {
  classification_spec s;
  s.rows = rows;
  s.features = 8;
  s.informative = 4;
  s.redundant = 2;
  s.seed = seed;
  return make_classification(s);
}

} // namespace

BOOST_AUTO_TEST_SUITE(boost)
BOOST_AUTO_TEST_SUITE(booster)

BOOST_AUTO_TEST_CASE(adult_auc_matches_xgboost) {
  if (!have(shared_file("adult_train.csv.gz")))
    return;
  auto tr = read("adult_train.csv.gz");
  auto te = read("adult_test.csv.gz");
  booster_params p;
  p.rounds = 100;
  p.tree.max_depth = 6;
  p.tree.eta = 0.3;
  p.max_bin = 256;
  p.base_score = 0.5;
  p.threads = 1;
  auto r = train(tr, nullptr, p);
  auto preds = r.model.predict(te);
  double a = auc(te.labels(), preds);
  // XGBoost 1.7.4, tree_method=hist, the same parameters (base_score 0.5,
  // lambda 1, min_child_weight 1, max_bin 256): test AUC 0.925668.
  // The bound is 0.003.
  BOOST_TEST_MESSAGE("adult test auc " << a);
  BOOST_TEST(std::fabs(a - 0.925668) <= 0.003);
  BOOST_TEST(r.model.trees.size() == 100u);
}

BOOST_AUTO_TEST_CASE(training_loss_decreases_every_round) {
  auto d = small_classification(3000, 11);
  booster_params p;
  p.rounds = 20;
  p.eval_train = true;
  p.threads = 1;
  auto r = train(d, nullptr, p);
  BOOST_REQUIRE_EQUAL(r.history.size(), 20u);
  for (std::size_t i = 1; i < r.history.size(); ++i)
    BOOST_TEST(r.history[i].train.at("logloss") <=
               r.history[i - 1].train.at("logloss") + 1e-12);
}

BOOST_AUTO_TEST_CASE(thread_count_does_not_change_the_model) {
  auto d = small_classification(40000, 5);
  booster_params p;
  p.rounds = 5;
  p.threads = 1;
  auto one = train(d, nullptr, p);
  p.threads = 2;
  auto two = train(d, nullptr, p);
  // Histogram sums are added in another order with two threads, so gains may
  // differ in the last bits; the splits chosen must not.
  BOOST_REQUIRE_EQUAL(one.model.trees.size(), two.model.trees.size());
  for (std::size_t t = 0; t < one.model.trees.size(); ++t) {
    const auto& a = one.model.trees[t].nodes;
    const auto& b = two.model.trees[t].nodes;
    BOOST_REQUIRE_EQUAL(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      BOOST_TEST(a[i].feature == b[i].feature);
      BOOST_TEST(a[i].threshold == b[i].threshold);
      BOOST_TEST(std::fabs(a[i].value - b[i].value) <= 1e-5);
    }
  }
}

BOOST_AUTO_TEST_CASE(early_stopping_keeps_the_best_rounds) {
  auto d = small_classification(4000, 3);
  std::vector<std::size_t> head(3000), tail(1000);
  std::iota(head.begin(), head.end(), 0);
  std::iota(tail.begin(), tail.end(), 3000);
  auto tr = d.select_rows(head);
  auto va = d.select_rows(tail);
  booster_params p;
  p.rounds = 300;
  p.tree.eta = 0.5;
  p.tree.max_depth = 8;
  p.early_stopping_rounds = 5;
  p.threads = 1;
  auto r = train(tr, &va, p);
  BOOST_REQUIRE_LT(r.history.size(), 300u);
  BOOST_TEST(r.model.rounds() == static_cast<std::size_t>(r.best_round));
  // The kept rounds reproduce the best validation AUC seen in the history.
  double best = 0;
  for (auto& h : r.history)
    best = std::max(best, h.valid.at("auc"));
  BOOST_TEST(auc(va.labels(), r.model.predict(va)) == best,
             boost::test_tools::tolerance(1e-12));
  // And no round after it improved on it for 5 rounds.
  BOOST_TEST(r.history.size() == static_cast<std::size_t>(r.best_round) + 5);
  // What it did is reported.
  BOOST_TEST(r.early_stop.stopped);
  BOOST_TEST(r.early_stop.metric == "auc");
  BOOST_TEST(r.early_stop.best_round == r.best_round);
  BOOST_TEST(r.early_stop.last_round == r.best_round + 5);
  BOOST_TEST(r.early_stop.best_score == best);
}

// The history does not depend on who watches: without a callback, every
// round's validation metrics are there.
BOOST_AUTO_TEST_CASE(history_without_a_callback) {
  auto d = small_classification(1000, 4);
  std::vector<std::size_t> head(800), tail(200);
  std::iota(head.begin(), head.end(), 0);
  std::iota(tail.begin(), tail.end(), 800);
  auto tr = d.select_rows(head);
  auto va = d.select_rows(tail);
  booster_params p;
  p.rounds = 7;
  p.threads = 1;
  auto r = train(tr, &va, p);
  BOOST_REQUIRE_EQUAL(r.history.size(), 7u);
  auto obj = r.model.make_objective();
  // Round 7's metrics are those of the whole model (whose prediction sums
  // leaf values in float, the history in double: 7 float roundings).
  auto expected = evaluate(obj, va.labels(), r.model.predict(va));
  for (const auto& [k, v] : expected)
    BOOST_TEST(r.history.back().valid.at(k) == v,
               boost::test_tools::tolerance(1e-6));
  BOOST_TEST(!r.early_stop.stopped);
  BOOST_TEST(r.early_stop.patience == 0);
}

// A coordinator fed each round's margins (as a federated prediction gives
// them) reproduces centralized training's history and stop.
BOOST_AUTO_TEST_CASE(round_watcher_reproduces_the_history) {
  auto d = small_classification(3000, 5);
  std::vector<std::size_t> head(2000), tail(1000);
  std::iota(head.begin(), head.end(), 0);
  std::iota(tail.begin(), tail.end(), 2000);
  auto tr = d.select_rows(head);
  auto va = d.select_rows(tail);
  booster_params p;
  p.rounds = 80;
  p.tree.eta = 1;
  p.tree.max_depth = 8;
  p.early_stopping_rounds = 3;
  p.threads = 1;
  auto r = train(tr, &va, p);
  BOOST_REQUIRE(r.early_stop.stopped);
  // Replay every round the centralized run trained (the model keeps the
  // best ones: train again without stopping to get them all).
  auto all = p;
  all.early_stopping_rounds = 0;
  all.rounds = r.early_stop.last_round;
  auto full = train(tr, &va, all);
  auto obj = full.model.make_objective();
  round_watcher watch(obj, va.labels(), full.model.base_margin, 3, all.rounds,
                      margin_sums::as_prediction);
  bool stopped = false;
  for (std::size_t t = 0; t < full.model.trees.size() && !stopped; ++t) {
    std::vector<double> round(va.rows());
    for (std::size_t i = 0; i < va.rows(); ++i)
      round[i] = full.model.trees[t].predict(va, i);
    stopped = watch.add_round(round);
  }
  BOOST_TEST(stopped);
  BOOST_TEST(watch.outcome().best_round == r.early_stop.best_round);
  BOOST_TEST(watch.outcome().last_round == r.early_stop.last_round);
  BOOST_REQUIRE_EQUAL(watch.history().size(), r.history.size());
  // Float sums (as a prediction makes them) against the double ones of
  // training: equal to float rounding.
  for (std::size_t k = 0; k < r.history.size(); ++k)
    BOOST_TEST(watch.history()[k].valid.at("logloss") ==
                   r.history[k].valid.at("logloss"),
               boost::test_tools::tolerance(1e-5));
  // Summed as a prediction: the last round's metrics are those of the
  // model's own prediction, bit for bit.
  BOOST_TEST(watch.history().back().valid ==
             evaluate(obj, va.labels(), full.model.predict(va)));
  BOOST_CHECK_THROW(watch.add_round(std::vector<double>(3)),
                    std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(early_stopping_rule) {
  objective obj(objective_kind::reg_squarederror, 1); // rmse, smaller wins
  early_stopping e(obj, 2);
  BOOST_TEST(!e.should_stop(1, {{"rmse", 5.0}}));
  BOOST_TEST(!e.should_stop(2, {{"rmse", 4.0}}));
  BOOST_TEST(!e.should_stop(3, {{"rmse", 4.0}})); // equal is no better
  BOOST_TEST(!e.should_stop(4, {{"rmse", 3.5}}));
  BOOST_TEST(!e.should_stop(5, {{"rmse", 3.6}}));
  BOOST_TEST(e.should_stop(6, {{"rmse", 3.7}}));
  BOOST_TEST(e.outcome().best_round == 4);
  BOOST_TEST(e.outcome().best_score == 3.5);
  BOOST_TEST(e.outcome().last_round == 6);
  BOOST_TEST(e.outcome().describe("test") ==
             "stopped early at round 6, best round 4 by rmse 3.5 on test "
             "(early_stopping_rounds 2)");
  BOOST_CHECK_THROW(e.should_stop(7, {{"auc", 1.0}}), std::logic_error);
  early_stopping off(obj, 0); // tracks the best round, never stops
  for (int r = 1; r <= 10; ++r)
    BOOST_TEST(!off.should_stop(r, {{"rmse", double(r)}}));
  BOOST_TEST(off.outcome().best_round == 1);
  BOOST_TEST(off.outcome().describe("test").empty());
}

// Importance by hand on a two-tree model: weight counts splits, gain and
// cover are means over them, sorted by total gain; a party's split table;
// the public view by owner.
BOOST_AUTO_TEST_CASE(feature_importance_by_hand) {
  model m;
  m.feature_names = {"a", "b", "c"};
  auto split = [](std::int32_t feature, float gain, double hess,
                  std::int32_t owner, std::int32_t left) {
    tree_node n;
    n.feature = feature;
    n.gain = gain;
    n.sum_hess = hess;
    n.owner = owner;
    n.left = left;
    n.right = left + 1;
    return n;
  };
  regression_tree t1, t2;
  t1.nodes = {split(0, 10, 100, 0, 1), split(1, 4, 60, 1, 3), tree_node{},
              tree_node{}, tree_node{}};
  t2.nodes = {split(0, 6, 100, 0, 1), tree_node{}, tree_node{}};
  m.trees = {t1, t2};
  auto all = importance(m);
  BOOST_REQUIRE_EQUAL(all.size(), 2u);
  BOOST_TEST(all[0].feature == "a");
  BOOST_TEST(all[0].weight == 2u);
  BOOST_TEST(all[0].gain() == 8.0);
  BOOST_TEST(all[0].cover() == 100.0);
  BOOST_TEST(all[0].total_gain == 16.0);
  BOOST_TEST(all[1].feature == "b");
  BOOST_TEST(all[1].weight == 1u);
  BOOST_TEST(all[1].total_cover == 60.0);
  // A party's split table: its features by name, gain and cover from the
  // model; and every party by owner.
  auto own = importance_of_splits(m, {{0, 1, "b-secret"}, {1, 0, "a-too"}});
  BOOST_REQUIRE_EQUAL(own.size(), 2u);
  BOOST_TEST(own[0].feature == "a-too");
  BOOST_TEST(own[0].total_gain == 6.0);
  BOOST_TEST(own[1].total_cover == 60.0);
  BOOST_CHECK_THROW(importance_of_splits(m, {{1, 1, "x"}}), std::out_of_range);
  auto owners = importance_by_owner(m, {"A", "B"});
  BOOST_REQUIRE_EQUAL(owners.size(), 2u);
  BOOST_TEST(owners[0].feature == "A");
  BOOST_TEST(owners[0].weight == 2u);
  BOOST_TEST(owners[1].feature == "B");
}

BOOST_AUTO_TEST_CASE(ccpp_regression_beats_the_mean) {
  if (!have(shared_file("ccpp.csv.gz")))
    return;
  auto d = read("ccpp.csv.gz");
  std::vector<std::size_t> head(d.rows() * 4 / 5), tail(d.rows() - head.size());
  std::iota(head.begin(), head.end(), 0);
  std::iota(tail.begin(), tail.end(), head.size());
  auto tr = d.select_rows(head);
  auto te = d.select_rows(tail);
  booster_params p;
  p.objective = objective_kind::reg_squarederror;
  p.rounds = 100;
  p.threads = 1;
  auto r = train(tr, nullptr, p);
  double e = rmse(te.labels(), r.model.predict(te));
  // XGBoost 1.7.4 hist, same split, 100 rounds, defaults, base_score = the
  // training mean: test RMSE 3.1702 MW (the label's sd is about 17 MW).
  BOOST_TEST_MESSAGE("ccpp test rmse " << e);
  BOOST_TEST(e <= 3.1702 * 1.05);
}

BOOST_AUTO_TEST_CASE(digits_multiclass) {
  if (!have(shared_file("sklearn_digits.csv.gz")))
    return;
  auto d = read("sklearn_digits.csv.gz");
  std::vector<std::size_t> head(1400), tail(d.rows() - 1400);
  std::iota(head.begin(), head.end(), 0);
  std::iota(tail.begin(), tail.end(), 1400);
  booster_params p;
  p.objective = objective_kind::multi_softmax;
  p.num_class = 10;
  p.rounds = 30;
  p.threads = 1;
  auto tr = d.select_rows(head);
  auto te = d.select_rows(tail);
  auto r = train(tr, nullptr, p);
  BOOST_TEST(r.model.trees.size() == 300u);
  double acc = multiclass_accuracy(te.labels(), r.model.predict(te), 10);
  BOOST_TEST_MESSAGE("digits test accuracy " << acc);
  // XGBoost 1.7.4 hist (multi:softprob, same split, 30 rounds, defaults):
  // test accuracy 0.879093 (349 of 397).
  BOOST_TEST(acc >= 0.879093 - 0.01);
}

BOOST_AUTO_TEST_CASE(decision_tables_share_one_split_per_level) {
  auto d = small_classification(5000, 9);
  booster_params p;
  p.rounds = 10;
  p.tree.max_depth = 4;
  p.tree.oblivious = true;
  p.threads = 1;
  auto r = train(d, nullptr, p);
  for (const auto& t : r.model.trees) {
    // Breadth-first levels: every inner node of a level has one split.
    std::vector<std::int32_t> level = {0};
    while (!level.empty() && !t.nodes[level[0]].is_leaf()) {
      std::vector<std::int32_t> next;
      for (auto id : level) {
        BOOST_REQUIRE(!t.nodes[id].is_leaf());
        BOOST_TEST(t.nodes[id].feature == t.nodes[level[0]].feature);
        BOOST_TEST(t.nodes[id].threshold == t.nodes[level[0]].threshold);
        next.push_back(t.nodes[id].left);
        next.push_back(t.nodes[id].right);
      }
      level = next;
    }
    for (auto id : level)
      BOOST_TEST(t.nodes[id].is_leaf());
  }
  auto a = auc(d.labels(), r.model.predict(d));
  BOOST_TEST(a > 0.85);
}

BOOST_AUTO_TEST_CASE(saved_model_predicts_the_same) {
  auto d = small_classification(2000, 21);
  // Missing values, so that default directions are saved and used.
  for (std::size_t i = 0; i < d.rows(); i += 7)
    d.value(i, 1) = missing_value;
  booster_params p;
  p.rounds = 10;
  p.threads = 1;
  auto r = train(d, nullptr, p);
  veil::test::temp_dir tmp;
  auto path = tmp.path("model.json");
  save_model(r.model, path);
  auto back = load_model(path);
  auto a = r.model.predict_margin(d);
  auto b = back.predict_margin(d);
  BOOST_REQUIRE_EQUAL(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i)
    BOOST_TEST(a[i] == b[i]);
  // A federated session's part of a model is refused, with its description.
  r.model.federated = "the public model of a test session";
  save_model(r.model, path);
  try {
    load_model(path);
    BOOST_FAIL("expected input_error");
  } catch (const veil::input_error& e) {
    std::string what = e.what();
    BOOST_TEST(what.find("cannot predict on its own: the public model of a "
                         "test session") != std::string::npos,
               what);
  }
}

BOOST_AUTO_TEST_CASE(bad_parameters_name_the_field) {
  auto d = small_classification(100, 1);
  booster_params p;
  p.tree.max_depth = 0;
  try {
    train(d, nullptr, p);
    BOOST_FAIL("expected input_error");
  } catch (const veil::input_error& e) {
    BOOST_TEST(std::string(e.what()).find("max_depth") != std::string::npos);
  }
  p = {};
  p.tree.eta = 0;
  BOOST_CHECK_THROW(train(d, nullptr, p), veil::input_error);
  p = {};
  d.labels()[3] = 2;
  try {
    train(d, nullptr, p);
    BOOST_FAIL("expected input_error");
  } catch (const veil::input_error& e) {
    BOOST_TEST(std::string(e.what()).find("row 4") != std::string::npos);
  }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
