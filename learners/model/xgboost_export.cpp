#include "learners/model/xgboost_export.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "learners/boost/model_io.hpp"
#include "learners/input_error.hpp"

// How the base margins are carried over.
//
// Veil predicts, per row and output c, in float:
//   acc = float(base_margin[c]); acc += leaf(tree 1); acc += leaf(tree 2) ...
// XGBoost 1.7 predicts (CPU predictor, `output_margin=True`), in float:
//   acc = ProbToMargin(base_score); acc += leaf(tree 1); ...
// where base_score is a float stored as a string (learner_model_param), and
// ProbToMargin is -logf(1.0f / p - 1.0f) for binary:logistic (base_score is
// a probability) and the identity for reg:squarederror and multi:softmax.
// One base_score serves every class.
//
// So the export is exact when a float base_score exists whose ProbToMargin
// equals float(base_margin[c]) for every c:
//   - reg:squarederror: base_score = float(base_margin[0]); always exact.
//   - binary:logistic: the float probabilities next to sigmoid(base_margin)
//     are searched for one with -logf(1/p - 1) == float(base_margin[0]) (the
//     same glibc logf that libxgboost calls). Usually one exists.
//   - multi:softmax: when all classes have the same float base margin, that
//     value is the base_score.
// Otherwise (no such probability; or classes with different base margins, as
// when they are fitted to the class frequencies) the base margin is FOLDED
// into the trees: base_score is set so that its margin is exactly zero (0.5
// for binary:logistic, 0 for multi:softmax), and every leaf of the first tree
// of output c gets the value float(base_margin[c]) + leaf, computed in float.
// XGBoost then computes 0 + (float(base_margin[c]) + leaf1) + leaf2 + ...,
// which is the very float sum Veil computes: the margins agree bit for bit.
// An output without any tree gets a one-leaf tree holding its base margin.
//
// Leaf values, thresholds, gains and hessian sums are written with the
// shortest decimal digits that read back as the same float, as XGBoost does.

namespace veil::learners {

using nlohmann::json;

namespace {

/// XGBoost's parent of the root: kInvalidNodeId (-1) without its
/// "is left child" bit.
constexpr std::int64_t root_parent = 2147483647;

[[noreturn]] void fail(const std::string& what) {
  throw input_error("cannot export the model to XGBoost: " + what);
}

/// `f` as a JSON number that prints with the float's shortest digits (as
/// XGBoost writes floats) and reads back, as a float, as `f` exactly.
double json_float(float f) {
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, f);
  *r.ptr = '\0';
  double d = std::strtod(buf, nullptr);
  // nlohmann prints d with its own shortest digits; should those ever read
  // back as another float, fall back to the exact value of f.
  auto text = json(d).dump();
  if (std::strtof(text.c_str(), nullptr) != f)
    return static_cast<double>(f);
  return d;
}

/// A float as XGBoost 1.7 writes base_score: shortest digits, scientific,
/// "E" and no exponent padding ("5E-1", "1.23456E-1", "-2.5E0", "0E0").
std::string xgboost_float_string(float f) {
  char buf[64];
  auto r =
      std::to_chars(buf, buf + sizeof buf, f, std::chars_format::scientific);
  std::string s(buf, r.ptr);
  auto e = s.find('e');
  if (e == std::string::npos)
    return s;
  return s.substr(0, e) + "E" + std::to_string(std::stoi(s.substr(e + 1)));
}

/// XGBoost's LogisticRegression::ProbToMargin, in float.
float logistic_margin(float p) {
  return -std::log(1.0f / p - 1.0f);
}

/// A float probability whose logistic_margin is exactly `target`, if one
/// lies near sigmoid(target).
std::optional<float> exact_probability(float target) {
  double p0 = 1.0 / (1.0 + std::exp(-static_cast<double>(target)));
  float p = static_cast<float>(p0);
  if (!(p > 0.0f && p < 1.0f))
    return std::nullopt;
  if (logistic_margin(p) == target)
    return p;
  float lo = p;
  float hi = p;
  for (int k = 0; k < 256; ++k) {
    lo = std::nextafter(lo, 0.0f);
    hi = std::nextafter(hi, 1.0f);
    if (lo > 0.0f && logistic_margin(lo) == target)
      return lo;
    if (hi < 1.0f && logistic_margin(hi) == target)
      return hi;
  }
  return std::nullopt;
}

/// What base_score to write and which outputs get their base margin folded
/// into their first tree (see the comment at the top).
struct base_plan {
  float base_score = 0.5f;
  bool fold = false;
  std::vector<float> margins; ///< float(base_margin[c])
};

base_plan plan_base(const model& m, int outputs) {
  base_plan plan;
  for (int c = 0; c < outputs; ++c) {
    auto f = static_cast<float>(m.base_margin[static_cast<std::size_t>(c)]);
    if (!std::isfinite(f))
      fail("base_margin[" + std::to_string(c) + "] is not a finite float");
    plan.margins.push_back(f);
  }
  switch (m.objective) {
  case objective_kind::reg_squarederror:
    plan.base_score = plan.margins[0];
    break;
  case objective_kind::binary_logistic:
    if (auto p = exact_probability(plan.margins[0])) {
      plan.base_score = *p;
    } else {
      plan.base_score = 0.5f; // margin -logf(1) = 0
      plan.fold = true;
    }
    break;
  case objective_kind::multi_softmax: {
    bool same = true;
    for (float f : plan.margins)
      same = same && f == plan.margins[0];
    if (same) {
      plan.base_score = plan.margins[0];
    } else {
      plan.base_score = 0.0f;
      plan.fold = true;
    }
    break;
  }
  }
  return plan;
}

json tree_json(const regression_tree& t, int id, std::size_t num_feature,
               std::optional<float> fold) {
  const auto& nodes = t.nodes;
  auto n = nodes.size();
  auto where = [&](std::size_t i) {
    return "tree " + std::to_string(id) + " node " + std::to_string(i);
  };
  if (n == 0)
    fail("tree " + std::to_string(id) + " has no nodes");
  if (n > static_cast<std::size_t>(root_parent))
    fail("tree " + std::to_string(id) + " has too many nodes");

  // Parents from the structure (not from tree_node::parent), checking that
  // every node is reached exactly once from the root.
  std::vector<std::int64_t> parent(n, -1);
  parent[0] = root_parent;
  std::vector<std::size_t> stack = {0};
  std::size_t reached = 0;
  while (!stack.empty()) {
    auto i = stack.back();
    stack.pop_back();
    ++reached;
    const auto& nd = nodes[i];
    if (nd.is_leaf())
      continue;
    for (auto child : {nd.left, nd.right}) {
      if (child < 0 || static_cast<std::size_t>(child) >= n)
        fail(where(i) + " has the child " + std::to_string(child) +
             ", which is not a node of the tree");
      auto c = static_cast<std::size_t>(child);
      if (c == 0 || parent[c] != -1)
        fail(where(c) + " is reached twice");
      parent[c] = static_cast<std::int64_t>(i);
      stack.push_back(c);
    }
  }
  if (reached != n)
    fail("tree " + std::to_string(id) + " has " + std::to_string(n - reached) +
         " nodes that the root does not reach");

  json base_weights = json::array(), default_left = json::array(),
       left_children = json::array(), loss_changes = json::array(),
       parents = json::array(), right_children = json::array(),
       split_conditions = json::array(), split_indices = json::array(),
       split_type = json::array(), sum_hessian = json::array();
  for (std::size_t i = 0; i < n; ++i) {
    const auto& nd = nodes[i];
    float value = nd.value;
    if (nd.is_leaf() && fold)
      value = *fold + value; // as Veil adds: base margin, then the leaf
    if (!std::isfinite(value))
      fail(where(i) + " has a non-finite value");
    parents.push_back(parent[i]);
    split_type.push_back(0);
    sum_hessian.push_back(json_float(static_cast<float>(nd.sum_hess)));
    base_weights.push_back(json_float(value));
    if (nd.is_leaf()) {
      left_children.push_back(-1);
      right_children.push_back(-1);
      default_left.push_back(0);
      split_indices.push_back(0);
      split_conditions.push_back(json_float(value));
      loss_changes.push_back(0.0);
    } else {
      if (nd.feature < 0 || static_cast<std::size_t>(nd.feature) >= num_feature)
        fail(where(i) + " splits on feature " + std::to_string(nd.feature) +
             ", but the model has " + std::to_string(num_feature) +
             " features");
      if (!std::isfinite(nd.threshold))
        fail(where(i) + " has a non-finite threshold");
      left_children.push_back(nd.left);
      right_children.push_back(nd.right);
      default_left.push_back(nd.default_left ? 1 : 0);
      split_indices.push_back(nd.feature);
      split_conditions.push_back(json_float(nd.threshold));
      loss_changes.push_back(json_float(nd.gain));
    }
  }
  return {{"base_weights", std::move(base_weights)},
          {"categories", json::array()},
          {"categories_nodes", json::array()},
          {"categories_segments", json::array()},
          {"categories_sizes", json::array()},
          {"default_left", std::move(default_left)},
          {"id", id},
          {"left_children", std::move(left_children)},
          {"loss_changes", std::move(loss_changes)},
          {"parents", std::move(parents)},
          {"right_children", std::move(right_children)},
          {"split_conditions", std::move(split_conditions)},
          {"split_indices", std::move(split_indices)},
          {"split_type", std::move(split_type)},
          {"sum_hessian", std::move(sum_hessian)},
          {"tree_param",
           {{"num_deleted", "0"},
            {"num_feature", std::to_string(num_feature)},
            {"num_nodes", std::to_string(n)},
            {"size_leaf_vector", "0"}}}};
}

} // namespace

json to_xgboost_json(const model& m) {
  int outputs = m.outputs();
  if (m.objective == objective_kind::multi_softmax && m.num_class < 2)
    fail("multi:softmax needs num_class >= 2, not " +
         std::to_string(m.num_class));
  if (static_cast<int>(m.base_margin.size()) != outputs)
    fail("base_margin has " + std::to_string(m.base_margin.size()) +
         " entries, expected " + std::to_string(outputs));

  std::size_t num_feature = m.feature_names.size();
  if (num_feature == 0)
    for (const auto& t : m.trees)
      for (const auto& nd : t.nodes)
        if (!nd.is_leaf() && nd.feature >= 0)
          num_feature =
              std::max(num_feature, static_cast<std::size_t>(nd.feature) + 1);

  auto plan = plan_base(m, outputs);
  std::vector<bool> folded(static_cast<std::size_t>(outputs), !plan.fold);

  json trees = json::array();
  json tree_info = json::array();
  int id = 0;
  for (const auto& t : m.trees) {
    if (t.target < 0 || t.target >= outputs)
      fail("tree " + std::to_string(id) + " adds to output " +
           std::to_string(t.target) + ", but the model has " +
           std::to_string(outputs));
    auto c = static_cast<std::size_t>(t.target);
    std::optional<float> fold;
    if (!folded[c]) {
      fold = plan.margins[c];
      folded[c] = true;
    }
    trees.push_back(tree_json(t, id, num_feature, fold));
    tree_info.push_back(t.target);
    ++id;
  }
  // Outputs without a tree still need their base margin: a one-leaf tree.
  for (int c = 0; c < outputs; ++c) {
    if (folded[static_cast<std::size_t>(c)])
      continue;
    regression_tree leaf;
    leaf.target = c;
    leaf.nodes.emplace_back();
    trees.push_back(tree_json(leaf, id, num_feature,
                              plan.margins[static_cast<std::size_t>(c)]));
    tree_info.push_back(c);
    ++id;
  }

  auto num_trees = static_cast<std::size_t>(id);
  auto rounds = num_trees / static_cast<std::size_t>(outputs);
  json attributes = json::object();
  if (rounds > 0) {
    // What xgb.train records without evaluation sets.
    attributes["best_iteration"] = std::to_string(rounds - 1);
    attributes["best_ntree_limit"] = std::to_string(rounds);
  }

  json objective;
  switch (m.objective) {
  case objective_kind::binary_logistic:
    objective = {{"name", "binary:logistic"},
                 {"reg_loss_param", {{"scale_pos_weight", "1"}}}};
    break;
  case objective_kind::reg_squarederror:
    objective = {{"name", "reg:squarederror"},
                 {"reg_loss_param", {{"scale_pos_weight", "1"}}}};
    break;
  case objective_kind::multi_softmax:
    objective = {{"name", "multi:softmax"},
                 {"softmax_multiclass_param",
                  {{"num_class", std::to_string(m.num_class)}}}};
    break;
  }

  json feature_types = json::array();
  for (std::size_t j = 0; j < m.feature_names.size(); ++j)
    feature_types.push_back("float");

  json learner = {
      {"attributes", std::move(attributes)},
      {"feature_names", m.feature_names},
      {"feature_types", std::move(feature_types)},
      {"gradient_booster",
       {{"model",
         {{"gbtree_model_param",
           {{"num_parallel_tree", "1"},
            {"num_trees", std::to_string(num_trees)},
            {"size_leaf_vector", "0"}}},
          {"tree_info", std::move(tree_info)},
          {"trees", std::move(trees)}}},
        {"name", "gbtree"}}},
      {"learner_model_param",
       {{"base_score", xgboost_float_string(plan.base_score)},
        // "0": base_score is given, as XGBoost writes when the user sets it.
        {"boost_from_average", "0"},
        {"num_class", m.objective == objective_kind::multi_softmax
                          ? std::to_string(m.num_class)
                          : std::string("0")},
        {"num_feature", std::to_string(num_feature)},
        {"num_target", "1"}}},
      {"objective", std::move(objective)}};
  return {{"learner", std::move(learner)}, {"version", {1, 7, 4}}};
}

void export_xgboost(const model& m, const std::string& path) {
  write_file_atomically(path, to_xgboost_json(m).dump());
}

} // namespace veil::learners
