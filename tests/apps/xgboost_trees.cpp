// Veil's centralized trees against XGBoost 1.7 `hist` trained by
// scripts/xgboost_reference.py on the same data and parameters. Where both
// bin every distinct value separately (max_bin above the distinct count),
// the trees must be equal split for split: same features, same thresholds,
// same default directions, and leaf values equal to float precision. Skipped
// when python3-xgboost is not installed.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <optional>
#include <sys/wait.h>

#include "learners/boost/booster.hpp"
#include "learners/data/csv_reader.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil::learners;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

std::string shared_file(const std::string& name) {
  return std::string(VEIL_SHARED_DIR) + "/datasets/" + name;
}

struct reference_run {
  bool skipped = false;
  json model;
};

/// Trains XGBoost on `d` with `params` ("key=value ...").
reference_run xgboost_model(const dataset& d, const std::string& params) {
  veil::test::temp_dir tmp;
  auto data = tmp.path("data.csv");
  auto out = tmp.path("model.json");
  write_csv(d, data);
  auto cmd = "/usr/bin/python3 " + std::string(VEIL_SOURCE_DIR) +
             "/scripts/xgboost_reference.py " + data + " " + out + " " + params;
  int st = std::system(cmd.c_str());
  reference_run r;
  if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
    BOOST_TEST_MESSAGE("skipped: python3-xgboost not installed");
    r.skipped = true;
  } else {
    BOOST_REQUIRE_MESSAGE(WIFEXITED(st) && WEXITSTATUS(st) == 0,
                          "xgboost_reference.py failed: " << cmd);
    std::ifstream(out) >> r.model;
  }
  return r;
}

/// Compares tree `x` (XGBoost JSON) and `v` (Veil) below node ix / iv.
void compare_nodes(const json& x, const regression_tree& v, int ix, int iv,
                   const std::string& path, double leaf_tol) {
  bool x_leaf = x["left_children"][ix].get<int>() < 0;
  const auto& n = v.nodes[iv];
  BOOST_REQUIRE_MESSAGE(x_leaf == n.is_leaf(),
                        "leaf/split mismatch at " << path);
  if (x_leaf) {
    double xv = x["split_conditions"][ix].get<double>();
    BOOST_TEST(std::fabs(xv - n.value) <= leaf_tol,
               "leaf value at " << path << ": xgboost " << xv << ", veil "
                                << n.value);
    return;
  }
  BOOST_REQUIRE_MESSAGE(x["split_indices"][ix].get<int>() == n.feature,
                        "feature at " << path << ": xgboost "
                                      << x["split_indices"][ix] << ", veil "
                                      << n.feature);
  BOOST_REQUIRE_MESSAGE(x["split_conditions"][ix].get<float>() == n.threshold,
                        "threshold at " << path << ": xgboost "
                                        << x["split_conditions"][ix]
                                        << ", veil " << n.threshold);
  BOOST_REQUIRE_MESSAGE(x["default_left"][ix].get<int>() == n.default_left,
                        "default direction at " << path);
  // Feature importance reads these: the split's loss reduction (XGBoost's
  // loss_changes, gamma not subtracted) and its hessian sum (cover).
  // XGBoost computes the gain in float as a difference of terms as large as
  // the parent's G^2 / H = w^2 H (w its base weight), so it is exact to a
  // few float roundings of that, not of the gain.
  double x_gain = x["loss_changes"][ix].get<double>();
  double x_cover = x["sum_hessian"][ix].get<double>();
  double w = x["base_weights"][ix].get<double>();
  double term = w * w * (x_cover + 1);
  BOOST_TEST(std::fabs(x_gain - n.gain) <=
                 1e-4 * std::fabs(x_gain) + 8 * std::ldexp(term, -24) + 1e-4,
             "gain at " << path << ": xgboost " << x_gain << ", veil "
                        << n.gain);
  BOOST_TEST(std::fabs(x_cover - n.sum_hess) <= 1e-5 * x_cover + 1e-5,
             "cover at " << path << ": xgboost " << x_cover << ", veil "
                         << n.sum_hess);
  compare_nodes(x, v, x["left_children"][ix], n.left, path + "L", leaf_tol);
  compare_nodes(x, v, x["right_children"][ix], n.right, path + "R", leaf_tol);
}

/// XGBoost keeps training margins in float, Veil in double, so gradients
/// differ by up to |margin| * 2^-24 per row and leaf values by about
/// eta * |margin| * 2^-24; `margin_scale` is the largest |margin|.
void compare_models(const json& x, const model& m, double eta,
                    double margin_scale = 1) {
  double leaf_tol = 1e-6 + eta * margin_scale * std::ldexp(1.0, -22);
  const auto& gb = x["learner"]["gradient_booster"]["model"];
  const auto& trees = gb["trees"];
  BOOST_REQUIRE_EQUAL(trees.size(), m.trees.size());
  for (std::size_t t = 0; t < trees.size(); ++t) {
    BOOST_TEST(gb["tree_info"][t].get<int>() == m.trees[t].target);
    compare_nodes(trees[t], m.trees[t], 0, 0, "tree " + std::to_string(t) + " ",
                  leaf_tol);
  }
}

/// Shared dataset `name` with its label column, or nothing (the test is
/// skipped) when it is not there.
std::optional<dataset> read_shared(const std::string& name) {
  if (!fs::exists(shared_file(name))) {
    BOOST_TEST_MESSAGE("skipped: " << name << " is not there");
    return std::nullopt;
  }
  read_options o;
  o.label = "label";
  return read_csv(shared_file(name), o);
}

/// Trains Veil with `p` and XGBoost with `xgboost_params` (the same
/// parameters, as xgboost_reference.py takes them) on `d`, and checks that
/// the trees are equal; `margin_scale` as in compare_models.
void check_same_trees(const dataset& d, const booster_params& p,
                      const std::string& xgboost_params,
                      double margin_scale = 1) {
  auto x = xgboost_model(d, xgboost_params);
  if (x.skipped)
    return;
  compare_models(x.model, train(d, nullptr, p).model, p.tree.eta, margin_scale);
}

/// sklearn_digits as "is it a 3?", 10 trees of depth 4, with XGBoost's
/// max_delta_step (0: off), against XGBoost.
void check_binary_digits(double max_delta_step) {
  auto d = read_shared("sklearn_digits.csv.gz");
  if (!d)
    return;
  for (auto& y : d->labels())
    y = y == 3 ? 1.0f : 0.0f;
  booster_params p;
  p.rounds = 10;
  p.tree.max_depth = 4;
  p.tree.max_delta_step = max_delta_step;
  p.base_score = 0.5;
  check_same_trees(*d, p,
                   "objective=binary:logistic max_depth=4 eta=0.3 "
                   "max_delta_step=" +
                       std::to_string(max_delta_step) +
                       " base_score=0.5 max_bin=256 rounds=10");
}

} // namespace

BOOST_AUTO_TEST_SUITE(xgboost_trees)

BOOST_AUTO_TEST_CASE(binary_digits) {
  check_binary_digits(0);
}

BOOST_AUTO_TEST_CASE(binary_max_delta_step) {
  // Leaf weights clamped to [-0.7, 0.7] before eta: most of the first
  // trees' leaves are clamped, both ways (|-G / (H + lambda)| is up to 2 at
  // p = 0.5), and split gains score the clamped weights. (A limit of 0.1 or
  // 0.5 grows single-leaf trees here in XGBoost: a split whose children are
  // both clamped the same way loses lambda * limit^2.)
  check_binary_digits(0.7);
}

BOOST_AUTO_TEST_CASE(binary_with_missing_values) {
  auto d = read_shared("breast_cancer_wisconsin.csv.gz");
  if (!d)
    return;
  // Missing values in a pattern that depends on the row and the feature, so
  // that learned default directions differ between nodes.
  for (std::size_t i = 0; i < d->rows(); ++i)
    for (std::size_t f = 0; f < d->features(); ++f)
      if ((i * 7 + f * 3) % 11 == 0)
        d->value(i, f) = missing_value;
  booster_params p;
  p.rounds = 10;
  p.tree.max_depth = 5;
  p.tree.lambda = 2;
  p.tree.min_child_weight = 0.5;
  p.max_bin = 1024; // above the 547 distinct values: exact cuts in both
  p.base_score = 0.5;
  check_same_trees(*d, p,
                   "objective=binary:logistic max_depth=5 eta=0.3 "
                   "lambda=2 min_child_weight=0.5 base_score=0.5 "
                   "max_bin=1024 rounds=10");
}

BOOST_AUTO_TEST_CASE(regression) {
  auto d = read_shared("ccpp.csv.gz");
  if (!d)
    return;
  booster_params p;
  p.objective = objective_kind::reg_squarederror;
  p.rounds = 10;
  p.tree.max_depth = 6;
  p.tree.eta = 0.1;
  p.max_bin = 8192;       // above the 4546 distinct values
  p.base_score = 454.375; // exact in float, as XGBoost stores it
  check_same_trees(*d, p,
                   "objective=reg:squarederror max_depth=6 eta=0.1 "
                   "base_score=454.375 max_bin=8192 rounds=10",
                   500);
}

BOOST_AUTO_TEST_CASE(multiclass) {
  auto d = read_shared("sklearn_digits.csv.gz");
  if (!d)
    return;
  booster_params p;
  p.objective = objective_kind::multi_softmax;
  p.num_class = 10;
  p.rounds = 3;
  p.tree.max_depth = 3;
  p.base_score = 0.5;
  check_same_trees(*d, p,
                   "objective=multi:softprob num_class=10 "
                   "max_depth=3 eta=0.3 base_score=0.5 max_bin=256 "
                   "rounds=3");
}

BOOST_AUTO_TEST_SUITE_END()
