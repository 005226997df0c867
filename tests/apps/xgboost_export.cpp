// Exports Veil models to XGBoost's JSON format and checks with the real
// xgboost 1.7 (through scripts/xgboost_predict.py and /usr/bin/python3) that
// it predicts the same margins. Skipped when python3-xgboost is missing.

#include "learners/model/xgboost_export.hpp"

#include "learners/boost/booster.hpp"
#include "learners/input_error.hpp"
#include "tests/support/temp_dir.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace veil::learners;
using nlohmann::json;
using veil::test::temp_dir;

namespace {

const std::string python = "/usr/bin/python3";

bool have_xgboost() {
  static const bool ok =
      std::system((python + " -c 'import xgboost' >/dev/null 2>&1").c_str()) ==
      0;
  return ok;
}

#define SKIP_WITHOUT_XGBOOST()                                                 \
  do {                                                                         \
    if (!have_xgboost()) {                                                     \
      BOOST_TEST_MESSAGE("skipped: python3-xgboost not installed");            \
      BOOST_TEST(true);                                                        \
      return;                                                                  \
    }                                                                          \
  } while (false)

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

/// Runs a command; returns its exit status and fills `output` with its
/// stdout and stderr.
int run(const std::string& cmd, const temp_dir& tmp, std::string& output) {
  auto log = tmp.path("command.log");
  int rc = std::system((cmd + " >" + quote(log) + " 2>&1").c_str());
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  output = ss.str();
  if (rc == -1 || !WIFEXITED(rc))
    return -1;
  return WEXITSTATUS(rc);
}

/// A float as text that reads back (as a double, then a float) as exactly
/// this float: the shortest digits of the float's exact double value.
std::string float_text(float f) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, static_cast<double>(f));
  return std::string(buf, r.ptr);
}

/// Writes the features of `d` as CSV, missing values as empty fields. The
/// columns are written in `order` (indices into d's features), with an extra
/// `label` column first when `with_label`, to check matching by name.
void write_feature_csv(const dataset& d, const std::string& path,
                       std::vector<std::size_t> order = {},
                       bool with_label = false) {
  if (order.empty())
    for (std::size_t j = 0; j < d.features(); ++j)
      order.push_back(j);
  std::ofstream out(path);
  std::string sep;
  if (with_label) {
    out << "label";
    sep = ",";
  }
  for (auto j : order) {
    out << sep << d.feature_names()[j];
    sep = ",";
  }
  out << '\n';
  for (std::size_t i = 0; i < d.rows(); ++i) {
    sep.clear();
    if (with_label) {
      out << (d.has_labels() ? float_text(d.labels()[i]) : "0");
      sep = ",";
    }
    for (auto j : order) {
      out << sep;
      float x = d.value(i, j);
      if (!is_missing(x))
        out << float_text(x);
      sep = ",";
    }
    out << '\n';
  }
  BOOST_REQUIRE(out.good());
}

/// Reads the output of xgboost_predict.py: rows of numbers after a header.
std::vector<std::vector<double>> read_output(const std::string& path) {
  std::ifstream in(path);
  BOOST_REQUIRE_MESSAGE(in.good(), "cannot read " << path);
  std::string line;
  std::getline(in, line); // header
  std::vector<std::vector<double>> rows;
  while (std::getline(in, line)) {
    if (line.empty())
      continue;
    std::vector<double> row;
    std::stringstream ss(line);
    std::string field;
    while (std::getline(ss, field, ','))
      row.push_back(std::strtod(field.c_str(), nullptr));
    rows.push_back(std::move(row));
  }
  return rows;
}

/// Runs scripts/xgboost_predict.py on an exported model and `data`.
std::vector<std::vector<double>> xgboost_predict(const temp_dir& tmp,
                                                 const std::string& model_path,
                                                 const std::string& data_path,
                                                 bool predict = false) {
  auto out = tmp.path(predict ? "predict.csv" : "margins.csv");
  std::string cmd =
      python + " " +
      quote(std::string(VEIL_SOURCE_DIR) + "/scripts/xgboost_predict.py") +
      (predict ? " --predict " : " ") + quote(model_path) + " " +
      quote(data_path) + " " + quote(out);
  std::string output;
  int rc = run(cmd, tmp, output);
  BOOST_REQUIRE_MESSAGE(rc == 0, "xgboost_predict.py failed (" << rc << "):\n"
                                                               << output);
  return read_output(out);
}

/// Random features with about 15% missing values; column 2 has a few
/// distinct values only, column 3 is missing half the time.
dataset make_features(std::size_t rows, std::uint32_t seed) {
  std::vector<std::string> names = {"age", "income", "level", "score", "noise"};
  dataset d(rows, names);
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  for (std::size_t i = 0; i < rows; ++i) {
    d.value(i, 0) = 20.0f + 50.0f * unit(rng);
    d.value(i, 1) = std::exp(normal(rng)) * 1000.0f;
    d.value(i, 2) = static_cast<float>(static_cast<int>(unit(rng) * 5.0f));
    d.value(i, 3) = normal(rng);
    d.value(i, 4) = normal(rng);
    for (std::size_t j = 0; j < 5; ++j) {
      double p = j == 3 ? 0.5 : 0.15;
      if (unit(rng) < p)
        d.value(i, j) = missing_value;
    }
  }
  return d;
}

/// A score that depends on missingness too, so that default_left matters.
double latent(const dataset& d, std::size_t i) {
  auto v = [&](std::size_t j, float if_missing) {
    float x = d.value(i, j);
    return is_missing(x) ? if_missing : x;
  };
  return 0.05 * (v(0, 70.0f) - 45.0) + 0.8 * std::log(v(1, 1.0f) / 1000.0) +
         0.4 * v(2, 4.0f) - 1.0 + 1.5 * v(3, 2.0f);
}

dataset binary_data(std::size_t rows, std::uint32_t seed) {
  auto d = make_features(rows, seed);
  std::mt19937 rng(seed + 1);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (std::size_t i = 0; i < rows; ++i)
    d.labels().push_back(
        unit(rng) < 1.0 / (1.0 + std::exp(-latent(d, i))) ? 1.0f : 0.0f);
  return d;
}

dataset regression_data(std::size_t rows, std::uint32_t seed) {
  auto d = make_features(rows, seed);
  std::mt19937 rng(seed + 1);
  std::normal_distribution<double> noise(0.0, 0.3);
  for (std::size_t i = 0; i < rows; ++i)
    d.labels().push_back(
        static_cast<float>(3.0 * latent(d, i) + 10.0 + noise(rng)));
  return d;
}

dataset multiclass_data(std::size_t rows, std::uint32_t seed) {
  auto d = make_features(rows, seed);
  std::mt19937 rng(seed + 1);
  std::normal_distribution<double> noise(0.0, 0.5);
  for (std::size_t i = 0; i < rows; ++i) {
    double s = latent(d, i) + noise(rng);
    // Unbalanced classes, so that the fitted base margins differ.
    d.labels().push_back(s < -1.5 ? 0.0f : s < 1.0 ? 1.0f : 2.0f);
  }
  return d;
}

model train_model(const dataset& d, objective_kind kind, int num_class = 2,
                  double base_score = std::nan(""), int rounds = 12) {
  booster_params p;
  p.objective = kind;
  p.num_class = num_class;
  p.rounds = rounds;
  p.tree.max_depth = 4;
  p.tree.eta = 0.3;
  p.max_bin = 32;
  p.threads = 2;
  p.base_score = base_score;
  return train(d, nullptr, p).model;
}

/// Compares Veil's margins of `d` with XGBoost's on the exported model; the
/// data CSV has its columns shuffled and a label column, to check that the
/// features are matched by name.
void check_margins(const model& m, const dataset& d, const temp_dir& tmp,
                   double tolerance = 1e-6) {
  auto model_path = tmp.path("model.json");
  auto data_path = tmp.path("data.csv");
  export_xgboost(m, model_path);
  std::vector<std::size_t> order;
  for (std::size_t j = d.features(); j-- > 0;)
    order.push_back(j);
  write_feature_csv(d, data_path, order, true);
  auto xgb = xgboost_predict(tmp, model_path, data_path);
  auto veil = m.predict_margin(d);
  auto n = d.rows();
  auto k = static_cast<std::size_t>(m.outputs());
  BOOST_REQUIRE_EQUAL(xgb.size(), n);
  double worst = 0;
  std::size_t bad = 0;
  std::size_t inexact = 0; // margins that differ as floats
  for (std::size_t i = 0; i < n; ++i) {
    BOOST_REQUIRE_EQUAL(xgb[i].size(), k);
    for (std::size_t c = 0; c < k; ++c) {
      double diff = std::abs(veil[c * n + i] - xgb[i][c]);
      worst = std::max(worst, diff);
      if (static_cast<float>(veil[c * n + i]) != static_cast<float>(xgb[i][c]))
        ++inexact;
      if (diff > tolerance && bad++ < 5)
        BOOST_ERROR("row " << i << " output " << c << ": veil "
                           << veil[c * n + i] << ", xgboost " << xgb[i][c]);
    }
  }
  BOOST_TEST_MESSAGE("largest margin difference: "
                     << worst << "; margins not equal as floats: " << inexact
                     << " of " << n * k);
  BOOST_CHECK_EQUAL(bad, 0u);
}

/// Compares Booster.predict() with Veil's predictions: probabilities for
/// binary:logistic, values for regression, the class with the largest
/// margin for multi:softmax.
void check_predictions(const model& m, const dataset& d, const temp_dir& tmp) {
  auto model_path = tmp.path("model.json");
  auto data_path = tmp.path("data.csv");
  export_xgboost(m, model_path);
  write_feature_csv(d, data_path);
  auto xgb = xgboost_predict(tmp, model_path, data_path, true);
  auto n = d.rows();
  BOOST_REQUIRE_EQUAL(xgb.size(), n);
  std::size_t bad = 0;
  if (m.objective == objective_kind::multi_softmax) {
    auto margins = m.predict_margin(d);
    auto k = static_cast<std::size_t>(m.outputs());
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t best = 0;
      for (std::size_t c = 1; c < k; ++c)
        if (margins[c * n + i] > margins[best * n + i])
          best = c;
      BOOST_REQUIRE_EQUAL(xgb[i].size(), 1u);
      if (xgb[i][0] != static_cast<double>(best) && bad++ < 5)
        BOOST_ERROR("row " << i << ": veil class " << best << ", xgboost class "
                           << xgb[i][0]);
    }
  } else {
    auto veil = m.predict(d);
    for (std::size_t i = 0; i < n; ++i) {
      BOOST_REQUIRE_EQUAL(xgb[i].size(), 1u);
      double tol = 1e-6 * std::max(1.0, std::abs(veil[i]));
      if (std::abs(veil[i] - xgb[i][0]) > tol && bad++ < 5)
        BOOST_ERROR("row " << i << ": veil " << veil[i] << ", xgboost "
                           << xgb[i][0]);
    }
  }
  BOOST_CHECK_EQUAL(bad, 0u);
}

int count_default_left(const model& m, bool value) {
  int n = 0;
  for (const auto& t : m.trees)
    for (const auto& nd : t.nodes)
      if (!nd.is_leaf() && nd.default_left == value)
        ++n;
  return n;
}

/// The key structure of a JSON value: objects keep their keys, arrays their
/// first element, scalars become their type name.
json shape(const json& j) {
  if (j.is_object()) {
    json out = json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
      out[it.key()] = shape(it.value());
    return out;
  }
  if (j.is_array())
    return j.empty() ? json::array() : json::array({shape(j.front())});
  if (j.is_number())
    return "number";
  return j.type_name();
}

/// A small hand-made model: one tree per class, each splitting on
/// feature 0 with missing values going left and then on feature 1 with
/// missing values going right.
model hand_model(objective_kind kind, int num_class,
                 std::vector<double> base_margin) {
  model m;
  m.objective = kind;
  m.num_class = num_class;
  m.base_margin = std::move(base_margin);
  m.feature_names = {"a", "b"};
  for (int c = 0; c < m.outputs(); ++c) {
    regression_tree t;
    t.target = c;
    t.nodes.resize(5);
    t.nodes[0] = {.left = 1,
                  .right = 2,
                  .feature = 0,
                  .threshold = 0.5f,
                  .default_left = true,
                  .value = 0.1f,
                  .gain = 3.0f,
                  .sum_hess = 10.0};
    t.nodes[1] = {.parent = 0, .value = -0.25f + 0.1f * c, .sum_hess = 4.0};
    t.nodes[2] = {.left = 3,
                  .right = 4,
                  .parent = 0,
                  .feature = 1,
                  .threshold = -1.25f,
                  .default_left = false,
                  .value = 0.2f,
                  .gain = 1.5f,
                  .sum_hess = 6.0};
    t.nodes[3] = {.parent = 2, .value = 0.125f, .sum_hess = 2.5};
    t.nodes[4] = {.parent = 2, .value = 0.375f - 0.05f * c, .sum_hess = 3.5};
    m.trees.push_back(std::move(t));
  }
  return m;
}

dataset hand_data() {
  dataset d(9, {"a", "b"});
  float a[] = {0.0f, 0.5f, 1.0f,          missing_value, 0.49999997f,
               2.0f, 7.0f, missing_value, 0.75f};
  float b[] = {0.0f,          -1.25f,      -2.0f,         3.0f, missing_value,
               missing_value, -1.2500001f, missing_value, 5.0f};
  for (std::size_t i = 0; i < 9; ++i) {
    d.value(i, 0) = a[i];
    d.value(i, 1) = b[i];
  }
  return d;
}

} // namespace

BOOST_AUTO_TEST_SUITE(xgboost_export)

BOOST_AUTO_TEST_CASE(schema_of_a_binary_model) {
  auto m = hand_model(objective_kind::binary_logistic, 1, {0.0});
  auto j = to_xgboost_json(m);
  BOOST_CHECK_EQUAL(j["version"], json({1, 7, 4}));
  const auto& l = j["learner"];
  BOOST_CHECK_EQUAL(l["feature_names"], json({"a", "b"}));
  BOOST_CHECK_EQUAL(l["feature_types"], json({"float", "float"}));
  BOOST_CHECK_EQUAL(l["objective"]["name"], "binary:logistic");
  BOOST_CHECK_EQUAL(l["objective"]["reg_loss_param"]["scale_pos_weight"], "1");
  const auto& p = l["learner_model_param"];
  // Margin 0 is probability 0.5, exactly.
  BOOST_CHECK_EQUAL(p["base_score"], "5E-1");
  BOOST_CHECK_EQUAL(p["num_class"], "0");
  BOOST_CHECK_EQUAL(p["num_feature"], "2");
  BOOST_CHECK_EQUAL(p["num_target"], "1");
  const auto& gb = l["gradient_booster"];
  BOOST_CHECK_EQUAL(gb["name"], "gbtree");
  BOOST_CHECK_EQUAL(gb["model"]["gbtree_model_param"]["num_trees"], "1");
  BOOST_CHECK_EQUAL(gb["model"]["tree_info"], json({0}));
  const auto& t = gb["model"]["trees"][0];
  BOOST_CHECK_EQUAL(t["id"], 0);
  BOOST_CHECK_EQUAL(t["parents"], json({2147483647, 0, 0, 2, 2}));
  BOOST_CHECK_EQUAL(t["left_children"], json({1, -1, 3, -1, -1}));
  BOOST_CHECK_EQUAL(t["right_children"], json({2, -1, 4, -1, -1}));
  BOOST_CHECK_EQUAL(t["default_left"], json({1, 0, 0, 0, 0}));
  BOOST_CHECK_EQUAL(t["split_indices"], json({0, 0, 1, 0, 0}));
  BOOST_CHECK_EQUAL(t["split_conditions"].dump(),
                    "[0.5,-0.25,-1.25,0.125,0.375]");
  BOOST_CHECK_EQUAL(t["base_weights"].dump(), "[0.1,-0.25,0.2,0.125,0.375]");
  BOOST_CHECK_EQUAL(t["loss_changes"].dump(), "[3.0,0.0,1.5,0.0,0.0]");
  BOOST_CHECK_EQUAL(t["sum_hessian"].dump(), "[10.0,4.0,6.0,2.5,3.5]");
  BOOST_CHECK_EQUAL(t["tree_param"]["num_nodes"], "5");
  BOOST_CHECK_EQUAL(t["tree_param"]["num_feature"], "2");
}

BOOST_AUTO_TEST_CASE(base_score_of_a_regression_model) {
  auto m = hand_model(objective_kind::reg_squarederror, 1, {123.5});
  auto p = to_xgboost_json(m)["learner"]["learner_model_param"];
  BOOST_CHECK_EQUAL(p["base_score"], "1.235E2");
  m.base_margin = {-2.5};
  p = to_xgboost_json(m)["learner"]["learner_model_param"];
  BOOST_CHECK_EQUAL(p["base_score"], "-2.5E0");
}

BOOST_AUTO_TEST_CASE(binary_base_score_is_the_exact_probability) {
  // The margin xgboost derives from base_score 0.3 (in float): exported as
  // base_score 0.3 again, with the trees unchanged.
  float margin = -std::log(1.0f / 0.3f - 1.0f);
  auto m = hand_model(objective_kind::binary_logistic, 1, {margin});
  auto j = to_xgboost_json(m);
  BOOST_CHECK_EQUAL(j["learner"]["learner_model_param"]["base_score"], "3E-1");
  BOOST_CHECK_EQUAL(
      j["learner"]["gradient_booster"]["model"]["trees"][0]["split_conditions"]
          .dump(),
      "[0.5,-0.25,-1.25,0.125,0.375]");
  if (have_xgboost()) {
    temp_dir tmp;
    check_margins(m, hand_data(), tmp);
  }
}

BOOST_AUTO_TEST_CASE(multiclass_base_margins_are_folded_into_first_trees) {
  auto m = hand_model(objective_kind::multi_softmax, 3, {0.25, -1.0, 0.5});
  // Two rounds: the second round's trees must stay as they are.
  auto round = m.trees;
  m.trees.insert(m.trees.end(), round.begin(), round.end());
  auto j = to_xgboost_json(m);
  const auto& l = j["learner"];
  BOOST_CHECK_EQUAL(l["learner_model_param"]["base_score"], "0E0");
  BOOST_CHECK_EQUAL(l["learner_model_param"]["num_class"], "3");
  BOOST_CHECK_EQUAL(l["objective"]["name"], "multi:softmax");
  BOOST_CHECK_EQUAL(l["objective"]["softmax_multiclass_param"]["num_class"],
                    "3");
  BOOST_CHECK_EQUAL(l["gradient_booster"]["model"]["tree_info"],
                    json({0, 1, 2, 0, 1, 2}));
  BOOST_CHECK_EQUAL(l["attributes"]["best_iteration"], "1");
  BOOST_CHECK_EQUAL(l["attributes"]["best_ntree_limit"], "2");
  const auto& trees = l["gradient_booster"]["model"]["trees"];
  // Leaf 3 (0.125) of class 1's first tree holds -1 + 0.125.
  BOOST_CHECK_EQUAL(trees[1]["split_conditions"][3].get<double>(), -0.875);
  BOOST_CHECK_EQUAL(trees[4]["split_conditions"][3].get<double>(), 0.125);
  // Inner nodes keep their thresholds.
  BOOST_CHECK_EQUAL(trees[1]["split_conditions"][0].get<double>(), 0.5);
}

BOOST_AUTO_TEST_CASE(malformed_models_are_input_errors) {
  auto m = hand_model(objective_kind::binary_logistic, 1, {0.0});
  auto bad = m;
  bad.trees[0].nodes[2].feature = 2;
  BOOST_CHECK_THROW(to_xgboost_json(bad), veil::input_error);
  bad = m;
  bad.trees[0].nodes[0].right = 7;
  BOOST_CHECK_THROW(to_xgboost_json(bad), veil::input_error);
  bad = m;
  bad.trees[0].nodes[2].left = 1; // node 1 reached twice
  BOOST_CHECK_THROW(to_xgboost_json(bad), veil::input_error);
  bad = m;
  bad.base_margin = {0.0, 1.0};
  BOOST_CHECK_THROW(to_xgboost_json(bad), veil::input_error);
  bad = m;
  bad.trees[0].target = 1;
  BOOST_CHECK_THROW(to_xgboost_json(bad), veil::input_error);
}

BOOST_AUTO_TEST_CASE(schema_matches_what_xgboost_saves) {
  SKIP_WITHOUT_XGBOOST();
  temp_dir tmp;
  // Let xgboost 1.7 save a model of each kind, then compare key structures.
  auto script = tmp.path("save.py");
  {
    std::ofstream out(script);
    out << "import sys, numpy as np, xgboost as xgb\n"
           "rng = np.random.default_rng(1)\n"
           "x = rng.normal(size=(200, 2))\n"
           "x[rng.random(x.shape) < 0.2] = np.nan\n"
           "y = (np.nan_to_num(x[:, 0]) > 0).astype(float)\n"
           "d = xgb.DMatrix(x, label=y, feature_names=['a', 'b'])\n"
           "for name, obj in [('binary', 'binary:logistic'),\n"
           "                  ('reg', 'reg:squarederror'),\n"
           "                  ('multi', 'multi:softmax')]:\n"
           "    p = {'objective': obj, 'max_depth': 2,\n"
           "         'tree_method': 'hist', 'base_score': 0.5}\n"
           "    if name == 'multi':\n"
           "        p['num_class'] = 3\n"
           "        d.set_label((y + (x[:, 1] > 0)).astype(float))\n"
           "    b = xgb.train(p, d, 2)\n"
           "    b.save_model(sys.argv[1] + '/' + name + '.json')\n";
  }
  std::string output;
  BOOST_REQUIRE_MESSAGE(
      run(python + " " + quote(script) + " " + quote(tmp.dir().string()), tmp,
          output) == 0,
      output);
  struct kind {
    const char* name;
    objective_kind objective;
    int num_class;
  };
  for (auto k : {kind{"binary", objective_kind::binary_logistic, 1},
                 kind{"reg", objective_kind::reg_squarederror, 1},
                 kind{"multi", objective_kind::multi_softmax, 3}}) {
    BOOST_TEST_CONTEXT(k.name) {
      std::ifstream in(tmp.path(std::string(k.name) + ".json"));
      auto theirs = json::parse(in);
      // base_score 0.5: margin 0 for binary:logistic, else 0.5.
      double base = k.objective == objective_kind::binary_logistic ? 0.0 : 0.5;
      auto m = hand_model(k.objective, k.num_class,
                          std::vector<double>(k.num_class, base));
      // Two rounds, like xgboost's model.
      auto round = m.trees;
      m.trees.insert(m.trees.end(), round.begin(), round.end());
      auto ours = to_xgboost_json(m);
      // xgboost leaves feature_types empty when none are given.
      theirs["learner"]["feature_types"] = json::array({"float", "float"});
      BOOST_CHECK_EQUAL(shape(ours).dump(1), shape(theirs).dump(1));
      // The parameters that are strings in xgboost's file agree exactly.
      BOOST_CHECK_EQUAL(ours["learner"]["learner_model_param"].dump(),
                        theirs["learner"]["learner_model_param"].dump());
      BOOST_CHECK_EQUAL(ours["learner"]["objective"].dump(),
                        theirs["learner"]["objective"].dump());
      BOOST_CHECK_EQUAL(ours["learner"]["attributes"].dump(),
                        theirs["learner"]["attributes"].dump());
      BOOST_CHECK_EQUAL(
          ours["learner"]["gradient_booster"]["model"]["gbtree_model_param"]
              .dump(),
          theirs["learner"]["gradient_booster"]["model"]["gbtree_model_param"]
              .dump());
    }
  }
}

BOOST_AUTO_TEST_CASE(hand_made_models_predict_the_same) {
  SKIP_WITHOUT_XGBOOST();
  auto d = hand_data();
  for (auto [kind, k, base] :
       {std::tuple{objective_kind::binary_logistic, 1,
                   std::vector<double>{0.0}},
        std::tuple{objective_kind::binary_logistic, 1,
                   std::vector<double>{-1.7}},
        std::tuple{objective_kind::reg_squarederror, 1,
                   std::vector<double>{42.125}},
        std::tuple{objective_kind::multi_softmax, 3,
                   std::vector<double>{0.1, 0.1, 0.1}},
        std::tuple{objective_kind::multi_softmax, 3,
                   std::vector<double>{0.3, -2.0, 1.1}}}) {
    BOOST_TEST_CONTEXT(to_string(kind) << " base " << json(base).dump()) {
      temp_dir tmp;
      auto m = hand_model(kind, k, base);
      check_margins(m, d, tmp);
      check_predictions(m, d, tmp);
      // A class without trees gets its base margin from a one-leaf tree.
      if (kind == objective_kind::multi_softmax) {
        m.trees.pop_back();
        check_margins(m, d, tmp);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(binary_logistic_model_predicts_the_same) {
  SKIP_WITHOUT_XGBOOST();
  temp_dir tmp;
  auto train_set = binary_data(600, 11);
  auto test_set = binary_data(400, 12);
  // The base margin fitted to the labels: logit of the positive rate.
  auto m = train_model(train_set, objective_kind::binary_logistic);
  BOOST_TEST_MESSAGE("base margin "
                     << m.base_margin[0] << ", base_score "
                     << to_xgboost_json(
                            m)["learner"]["learner_model_param"]["base_score"]);
  BOOST_CHECK_GT(count_default_left(m, true), 0);
  BOOST_CHECK_GT(count_default_left(m, false), 0);
  check_margins(m, test_set, tmp);
  check_margins(m, train_set, tmp);
  check_predictions(m, test_set, tmp);
  // base_score 0.5: margin 0.
  auto m2 = train_model(train_set, objective_kind::binary_logistic, 2, 0.5, 8);
  check_margins(m2, test_set, tmp);
  check_predictions(m2, test_set, tmp);
  // Base margins that no float probability reproduces exactly are folded
  // into the first tree: the margins still agree.
  for (double b : {1e-9, 3.0e-5, -17.3, 19.9, 0.7}) {
    BOOST_TEST_CONTEXT("base margin " << b) {
      auto m3 = m;
      m3.base_margin = {b};
      check_margins(m3, test_set, tmp);
    }
  }
}

BOOST_AUTO_TEST_CASE(regression_model_predicts_the_same) {
  SKIP_WITHOUT_XGBOOST();
  temp_dir tmp;
  auto train_set = regression_data(600, 21);
  auto test_set = regression_data(400, 22);
  auto m = train_model(train_set, objective_kind::reg_squarederror);
  BOOST_CHECK_GT(count_default_left(m, true), 0);
  check_margins(m, test_set, tmp);
  check_predictions(m, test_set, tmp);
  auto m2 = train_model(train_set, objective_kind::reg_squarederror, 2, 0.5, 5);
  check_margins(m2, test_set, tmp);
}

BOOST_AUTO_TEST_CASE(softmax_model_predicts_the_same) {
  SKIP_WITHOUT_XGBOOST();
  temp_dir tmp;
  auto train_set = multiclass_data(900, 31);
  auto test_set = multiclass_data(400, 32);
  // Base margins fitted to the class frequencies differ between classes.
  auto m = train_model(train_set, objective_kind::multi_softmax, 3);
  BOOST_REQUIRE_EQUAL(m.base_margin.size(), 3u);
  BOOST_CHECK_NE(m.base_margin[0], m.base_margin[1]);
  BOOST_CHECK_EQUAL(m.trees.size(), 36u);
  BOOST_CHECK_GT(count_default_left(m, true), 0);
  check_margins(m, test_set, tmp);
  check_margins(m, train_set, tmp);
  check_predictions(m, test_set, tmp);
  // A common base_score needs no folding.
  auto m2 = train_model(train_set, objective_kind::multi_softmax, 3, 0.5, 6);
  BOOST_CHECK_EQUAL(
      to_xgboost_json(m2)["learner"]["learner_model_param"]["base_score"],
      "5E-1");
  check_margins(m2, test_set, tmp);
  check_predictions(m2, test_set, tmp);
}

BOOST_AUTO_TEST_CASE(predict_script_reports_errors) {
  SKIP_WITHOUT_XGBOOST();
  temp_dir tmp;
  auto m = hand_model(objective_kind::binary_logistic, 1, {0.0});
  auto model_path = tmp.path("model.json");
  export_xgboost(m, model_path);
  auto data_path = tmp.path("data.csv");
  {
    std::ofstream out(data_path);
    out << "a,c\n1,2\n";
  }
  auto script = std::string(VEIL_SOURCE_DIR) + "/scripts/xgboost_predict.py";
  std::string output;
  int rc = run(python + " " + quote(script) + " " + quote(model_path) + " " +
                   quote(data_path) + " " + quote(tmp.path("out.csv")),
               tmp, output);
  BOOST_CHECK_NE(rc, 0);
  BOOST_CHECK_MESSAGE(output.find("\"b\"") != std::string::npos, output);
  rc = run(python + " " + quote(script) + " " + quote(tmp.path("none.json")) +
               " " + quote(data_path) + " " + quote(tmp.path("out.csv")),
           tmp, output);
  BOOST_CHECK_NE(rc, 0);
  BOOST_CHECK_MESSAGE(output.find("error") != std::string::npos, output);
}

BOOST_AUTO_TEST_SUITE_END()
