#include "learners/tree/tree_grower.hpp"

#include "learners/tree/local_split_finder.hpp"
#include "tests/support/random_data.hpp"
#include "tests/support/seeds.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <vector>

// The suite is called tree_grower too: spell the class with its namespace.
namespace vl = veil::learners;
using veil::test::all_rows;

namespace {

vl::tree_params params(int max_depth) {
  vl::tree_params p;
  p.max_depth = max_depth;
  p.eta = 0.3;
  p.lambda = 1;
  p.gamma = 0;
  p.min_child_weight = 1;
  return p;
}

/// A dataset whose label is x0 > 0.5, with x0 = (i + 0.5) / 200 over 200
/// rows in scrambled order and x1 noise, and gradients g = -1 for a
/// positive, +1 for a negative, h = 1.
struct perfect_split {
  vl::dataset d{200, {"x0", "x1"}};
  std::vector<vl::grad_pair> grads;

  perfect_split() {
    veil::test::rng r(veil::test::tree_seed);
    std::vector<int> order(200);
    for (int i = 0; i < 200; ++i)
      order[static_cast<std::size_t>(i)] = (i * 37) % 200; // a permutation
    d.labels().resize(200);
    for (std::size_t i = 0; i < 200; ++i) {
      d.value(i, 0) = static_cast<float>((order[i] + 0.5) / 200);
      d.value(i, 1) = static_cast<float>(r.uniform());
      d.labels()[i] = d.value(i, 0) > 0.5f ? 1.0f : 0.0f;
      grads.push_back({d.labels()[i] == 1 ? -1.0f : 1.0f, 1.0f});
    }
  }
};

/// One tree grown with the local split finder; keeps the grower for
/// rows_of.
struct grown {
  vl::quantile_cuts cuts;
  vl::bin_matrix bins;
  std::unique_ptr<vl::tree_grower> grower;
  int levels = 0;

  grown(const vl::dataset& d, std::span<const vl::grad_pair> grads,
        const vl::tree_params& p, int max_bin = 256, int threads = 1) {
    cuts = vl::quantile_cuts::compute(d, max_bin, threads);
    bins = vl::bin_matrix(d, cuts, threads);
    grower = std::make_unique<vl::tree_grower>(p, grads, all_rows(d.rows()),
                                               threads);
    vl::local_split_finder finder(bins, cuts, p, threads);
    finder.start_tree();
    while (!grower->done()) {
      auto decisions = finder.decide(grower->frontier(), grads);
      grower->apply(decisions);
      ++levels;
    }
  }
  const vl::regression_tree& tree() const { return grower->tree(); }
};

/// Depth of node i, by walking up the parent links.
int depth_of(const vl::regression_tree& t, std::int32_t i) {
  int d = 0;
  while (t.nodes[static_cast<std::size_t>(i)].parent >= 0) {
    i = t.nodes[static_cast<std::size_t>(i)].parent;
    ++d;
  }
  return d;
}

vl::grad_sum sum_over(std::span<const vl::grad_pair> grads,
                      std::span<const std::uint32_t> rows) {
  vl::grad_sum s;
  for (auto r : rows) {
    s.g += grads[r].g;
    s.h += grads[r].h;
  }
  return s;
}

/// eta * (-G / (H + lambda)), or 0 below min_child_weight.
double leaf_value(const vl::tree_params& p, const vl::grad_sum& s) {
  if (s.h < p.min_child_weight || s.h <= 0)
    return 0;
  return p.eta * (-s.g / (s.h + p.lambda));
}

/// The structural checks every grown tree must pass: each row in exactly
/// one leaf, rows_of(leaf) agreeing with routing the row's values through
/// the thresholds, children partitioning their parent's rows, leaf values
/// and hessian sums recomputed from the rows.
void check_tree(const vl::dataset& d, std::span<const vl::grad_pair> grads,
                const vl::tree_params& p, const grown& g) {
  const auto& t = g.tree();
  BOOST_REQUIRE(!t.nodes.empty());
  std::vector<int> seen(d.rows(), 0);
  std::vector<std::int32_t> leaf_by_rows(d.rows(), -1);
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const auto& n = t.nodes[i];
    auto id = static_cast<std::int32_t>(i);
    auto rows = g.grower->rows_of(id);
    auto s = sum_over(grads, rows);
    BOOST_CHECK_CLOSE(n.sum_hess + 1, s.h + 1, 1e-9);
    BOOST_CHECK_LE(depth_of(t, id), p.max_depth);
    if (n.is_leaf()) {
      BOOST_CHECK_EQUAL(n.right, -1);
      BOOST_CHECK_SMALL(n.value - leaf_value(p, s),
                        1e-6 * std::max(1.0, std::abs(leaf_value(p, s))));
      for (auto r : rows) {
        ++seen[r];
        leaf_by_rows[r] = id;
      }
      continue;
    }
    // An inner node: children point back, and split its rows in two.
    BOOST_REQUIRE_GE(n.right, 0);
    BOOST_CHECK_EQUAL(t.nodes[static_cast<std::size_t>(n.left)].parent, id);
    BOOST_CHECK_EQUAL(t.nodes[static_cast<std::size_t>(n.right)].parent, id);
    auto l = g.grower->rows_of(n.left);
    auto r = g.grower->rows_of(n.right);
    std::vector<std::uint32_t> both(l.begin(), l.end());
    both.insert(both.end(), r.begin(), r.end());
    std::sort(both.begin(), both.end());
    std::vector<std::uint32_t> mine(rows.begin(), rows.end());
    std::sort(mine.begin(), mine.end());
    BOOST_CHECK(both == mine);
    BOOST_CHECK_GT(n.gain, 0);
    BOOST_CHECK_GE(n.gain, p.gamma);
  }
  std::size_t bad = 0;
  for (std::size_t r = 0; r < d.rows(); ++r) {
    bool ok = seen[r] == 1 && t.leaf_of(d, r) == leaf_by_rows[r];
    if (!ok && ++bad <= 10)
      BOOST_ERROR("row " << r << ": in " << seen[r] << " leaves, rows_of says "
                         << leaf_by_rows[r] << ", thresholds say "
                         << t.leaf_of(d, r));
  }
  BOOST_CHECK_EQUAL(bad, 0u);
}

vl::split_decision decision(std::int32_t node, double gain, std::size_t rows) {
  vl::split_decision d;
  d.node = node;
  d.split.gain = gain;
  d.split.feature = 0;
  d.split.bin = 0;
  d.split.left = {-1, 1};
  d.split.right = {1, 1};
  d.feature = 0;
  d.threshold = 0.5f;
  d.goes_left.assign(rows, 0);
  for (std::size_t i = 0; i < rows; i += 2)
    d.goes_left[i] = 1;
  return d;
}

vl::split_decision no_split(std::int32_t node) {
  vl::split_decision d;
  d.node = node;
  return d;
}

} // namespace

BOOST_AUTO_TEST_SUITE(tree)
BOOST_AUTO_TEST_SUITE(tree_grower)

BOOST_AUTO_TEST_CASE(perfect_split_is_found) {
  perfect_split x;
  auto p = params(4);
  grown g(x.d, x.grads, p);
  const auto& t = g.tree();
  // The threshold: the smallest x0 of a positive row (x0 = 100.5 / 200).
  float threshold = 1;
  for (std::size_t i = 0; i < 200; ++i)
    if (x.d.labels()[i] == 1)
      threshold = std::min(threshold, x.d.value(i, 0));
  BOOST_CHECK_EQUAL(threshold, static_cast<float>(100.5 / 200));
  // The root splits on x0 there; both children are pure, so no split of
  // them gains anything and they stay leaves although max_depth is 4.
  BOOST_REQUIRE_EQUAL(t.nodes.size(), 3u);
  const auto& root = t.nodes[0];
  BOOST_CHECK_EQUAL(root.feature, 0);
  BOOST_CHECK_EQUAL(root.threshold, threshold);
  // 100 negatives left (G = 100, H = 100), 100 positives right (G = -100):
  // gain 100^2 / 101 + 100^2 / 101 - 0^2 / 201 = 20000 / 101.
  BOOST_CHECK_CLOSE(root.gain, 20000.0 / 101, 1e-4);
  BOOST_CHECK_EQUAL(root.value, 0.0f); // unscaled weight: G = 0
  BOOST_CHECK_CLOSE(root.sum_hess, 200.0, 1e-12);
  // Leaf values -eta G / (H + lambda) from the rows on each side.
  vl::grad_sum left, right;
  for (std::size_t i = 0; i < 200; ++i)
    (x.d.value(i, 0) < threshold ? left : right) += x.grads[i];
  BOOST_CHECK_EQUAL(left.g, 100.0);
  const auto& l = t.nodes[static_cast<std::size_t>(root.left)];
  const auto& r = t.nodes[static_cast<std::size_t>(root.right)];
  BOOST_CHECK_CLOSE(l.value, -0.3 * left.g / (left.h + 1), 1e-4);
  BOOST_CHECK_CLOSE(r.value, -0.3 * right.g / (right.h + 1), 1e-4);
  BOOST_CHECK_CLOSE(l.value, -0.3 * 100 / 101, 1e-4);
  // Every positive row is predicted from the right leaf.
  for (std::size_t i = 0; i < 200; ++i)
    BOOST_CHECK_EQUAL(t.predict(x.d, i),
                      x.d.labels()[i] == 1 ? r.value : l.value);
  check_tree(x.d, x.grads, p, g);
}

BOOST_AUTO_TEST_CASE(gamma_decides_the_split) {
  // The perfect split gains 20000 / 101 = 198.02.
  perfect_split x;
  auto p = params(4);
  p.gamma = 198;
  BOOST_CHECK_EQUAL(grown(x.d, x.grads, p).tree().nodes.size(), 3u);
  for (double gamma : {199.0, 1e6}) {
    p.gamma = gamma;
    grown g(x.d, x.grads, p);
    BOOST_REQUIRE_EQUAL(g.tree().nodes.size(), 1u);
    BOOST_CHECK(g.tree().nodes[0].is_leaf());
    // Sum of g is 0: the single leaf's value is 0.
    BOOST_CHECK_EQUAL(g.tree().nodes[0].value, 0.0f);
    check_tree(x.d, x.grads, p, g);
  }
}

BOOST_AUTO_TEST_CASE(no_gain_makes_a_leaf) {
  // Equal gradients everywhere: G^2 / (H + 1) with G = H is superadditive,
  // so every split loses; the root stays a leaf of value -eta n / (n + 1).
  perfect_split x;
  std::vector<vl::grad_pair> same(200, vl::grad_pair{1, 1});
  auto p = params(6);
  grown g(x.d, same, p);
  BOOST_REQUIRE_EQUAL(g.tree().nodes.size(), 1u);
  BOOST_CHECK_CLOSE(g.tree().nodes[0].value, -0.3 * 200 / 201, 1e-4);
  BOOST_CHECK_EQUAL(g.levels, 1);
}

BOOST_AUTO_TEST_CASE(max_depth_and_row_partition) {
  auto [d, grads] = veil::test::random_data_and_gradients(
      {.rows = 600,
       .features = 4,
       .missing_rate = 0.1,
       .seed = veil::test::tree_seed + 1});
  for (int max_depth : {1, 2, 4}) {
    BOOST_TEST_CONTEXT("max_depth " << max_depth) {
      auto p = params(max_depth);
      p.min_child_weight = 0.5;
      grown g(d, grads, p, 32);
      const auto& t = g.tree();
      int deepest = 0;
      for (std::size_t i = 0; i < t.nodes.size(); ++i)
        deepest = std::max(deepest, depth_of(t, static_cast<int>(i)));
      // Random gradients always leave something to gain at these depths.
      BOOST_CHECK_EQUAL(deepest, max_depth);
      BOOST_CHECK_EQUAL(t.depth(), max_depth);
      BOOST_CHECK_LE(t.leaves(), std::size_t{1} << max_depth);
      BOOST_CHECK_EQUAL(t.leaves() * 2 - 1, t.nodes.size());
      BOOST_CHECK_LE(g.levels, max_depth);
      check_tree(d, grads, p, g);
    }
  }
}

BOOST_AUTO_TEST_CASE(oblivious_tree_is_complete_and_shares_splits) {
  auto [d, grads] = veil::test::random_data_and_gradients(
      {.rows = 500,
       .features = 3,
       .missing_rate = 0.1,
       .seed = veil::test::tree_seed + 2});
  auto p = params(3);
  p.oblivious = true;
  p.min_child_weight = 0;
  grown g(d, grads, p, 16);
  const auto& t = g.tree();
  // Complete: 1 + 2 + 4 inner nodes, 8 leaves, all leaves at depth 3.
  BOOST_REQUIRE_EQUAL(t.nodes.size(), 15u);
  BOOST_CHECK_EQUAL(t.leaves(), 8u);
  std::map<int, std::vector<const vl::tree_node*>> inner_by_level;
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    int depth = depth_of(t, static_cast<int>(i));
    if (t.nodes[i].is_leaf())
      BOOST_CHECK_EQUAL(depth, 3);
    else
      inner_by_level[depth].push_back(&t.nodes[i]);
  }
  BOOST_REQUIRE_EQUAL(inner_by_level.size(), 3u);
  for (auto& [depth, nodes] : inner_by_level) {
    BOOST_CHECK_EQUAL(nodes.size(), std::size_t{1} << depth);
    for (auto* n : nodes) {
      BOOST_CHECK_EQUAL(n->feature, nodes[0]->feature);
      BOOST_CHECK_EQUAL(n->threshold, nodes[0]->threshold);
      BOOST_CHECK_EQUAL(n->default_left, nodes[0]->default_left);
    }
  }
  check_tree(d, grads, p, g);
}

BOOST_AUTO_TEST_CASE(two_threads_grow_the_same_tree) {
  // 140000 rows: enough work for two threads in binning, histograms and
  // row partitioning.
  auto [d, grads] = veil::test::random_data_and_gradients(
      {.rows = 140000,
       .features = 2,
       .missing_rate = 0.1,
       .seed = veil::test::tree_seed + 3});
  auto p = params(3);
  grown one(d, grads, p, 64, 1);
  grown two(d, grads, p, 64, 2);
  const auto& a = one.tree().nodes;
  const auto& b = two.tree().nodes;
  BOOST_REQUIRE_EQUAL(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    BOOST_CHECK_EQUAL(a[i].left, b[i].left);
    BOOST_CHECK_EQUAL(a[i].feature, b[i].feature);
    BOOST_CHECK_EQUAL(a[i].threshold, b[i].threshold);
    BOOST_CHECK_EQUAL(a[i].default_left, b[i].default_left);
    BOOST_CHECK_CLOSE(a[i].value + 1, b[i].value + 1, 1e-4);
  }
  check_tree(d, grads, p, two);
}

BOOST_AUTO_TEST_CASE(apply_rejects_bad_decisions) {
  std::vector<vl::grad_pair> grads(10, vl::grad_pair{0.5f, 1});
  vl::tree_grower g(params(3), grads, all_rows(10));
  BOOST_REQUIRE_EQUAL(g.frontier().size(), 1u);
  // Missing: no decision for the root.
  BOOST_CHECK_THROW(g.apply({}), std::invalid_argument);
  // A node that is not on the frontier.
  std::vector<vl::split_decision> ds{decision(7, 10, 10)};
  BOOST_CHECK_THROW(g.apply(ds), std::invalid_argument);
  // Two decisions for one node.
  ds = {decision(0, 10, 10), decision(0, 10, 10)};
  BOOST_CHECK_THROW(g.apply(ds), std::invalid_argument);
  // goes_left of the wrong length, shorter and longer.
  ds = {decision(0, 10, 9)};
  BOOST_CHECK_THROW(g.apply(ds), std::invalid_argument);
  ds = {decision(0, 10, 11)};
  BOOST_CHECK_THROW(g.apply(ds), std::invalid_argument);
  // Nothing changed: the root still waits, and a good decision works.
  BOOST_REQUIRE_EQUAL(g.frontier().size(), 1u);
  BOOST_CHECK_EQUAL(g.frontier()[0].node, 0);
  BOOST_CHECK_EQUAL(g.tree().nodes.size(), 1u);
  ds = {decision(0, 10, 10)};
  g.apply(ds);
  BOOST_REQUIRE_EQUAL(g.frontier().size(), 2u);
  // Even rows went left (goes_left[i] = 1 for even i), in order.
  auto l = g.rows_of(g.tree().nodes[0].left);
  std::vector<std::uint32_t> even{0, 2, 4, 6, 8};
  BOOST_CHECK_EQUAL_COLLECTIONS(l.begin(), l.end(), even.begin(), even.end());
  // The smaller (here: equal, so the left) child is built, the other
  // derived from its parent and sibling.
  auto f = g.frontier();
  BOOST_CHECK(f[0].build != f[1].build);
  for (auto& n : f) {
    BOOST_CHECK_EQUAL(n.parent, 0);
    BOOST_CHECK_EQUAL(n.depth, 1);
    BOOST_CHECK_EQUAL(n.sibling, n.node == f[0].node ? f[1].node : f[0].node);
    BOOST_CHECK_CLOSE(n.sum.g, 2.5, 1e-12);
    BOOST_CHECK_CLOSE(n.sum.h, 5, 1e-12);
  }
  // With two nodes waiting: one decision only, or the same node twice.
  ds = {no_split(f[0].node)};
  BOOST_CHECK_THROW(g.apply(ds), std::invalid_argument);
  ds = {no_split(f[0].node), no_split(f[0].node)};
  BOOST_CHECK_THROW(g.apply(ds), std::invalid_argument);
  // A leaf decision needs no goes_left; the other node splits.
  ds = {decision(f[1].node, 3, 5), no_split(f[0].node)};
  auto split_node = f[1].node, leaf_node = f[0].node;
  g.apply(ds);
  BOOST_CHECK(g.tree().nodes[static_cast<std::size_t>(leaf_node)].is_leaf());
  BOOST_CHECK(!g.tree().nodes[static_cast<std::size_t>(split_node)].is_leaf());
  BOOST_CHECK_EQUAL(g.frontier().size(), 2u);
  BOOST_CHECK_EQUAL(g.tree().nodes.size(), 5u);
}

BOOST_AUTO_TEST_CASE(too_small_gains_make_leaves) {
  std::vector<vl::grad_pair> grads(10, vl::grad_pair{0.5f, 1});
  // A gain at XGBoost's rounding threshold (1e-6) or below: no split.
  {
    vl::tree_grower g(params(3), grads, all_rows(10));
    std::vector<vl::split_decision> ds{decision(0, 1e-6, 10)};
    g.apply(ds);
    BOOST_CHECK(g.done());
    BOOST_CHECK_EQUAL(g.tree().nodes.size(), 1u);
    // Root leaf: -0.3 * 5 / (10 + 1).
    BOOST_CHECK_CLOSE(g.tree().nodes[0].value, -0.3 * 5 / 11, 1e-4);
  }
  // An invalid split, even without goes_left.
  {
    vl::tree_grower g(params(3), grads, all_rows(10));
    std::vector<vl::split_decision> ds{no_split(0)};
    g.apply(ds);
    BOOST_CHECK(g.done());
    BOOST_CHECK_EQUAL(g.tree().nodes.size(), 1u);
  }
  // A split with an empty side.
  {
    vl::tree_grower g(params(3), grads, all_rows(10));
    auto d = decision(0, 5, 10);
    d.split.right = {0, 0};
    std::vector<vl::split_decision> ds{d};
    g.apply(ds);
    BOOST_CHECK(g.done());
    BOOST_CHECK_EQUAL(g.tree().nodes.size(), 1u);
  }
}

BOOST_AUTO_TEST_CASE(max_depth_one_stops_after_the_root) {
  std::vector<vl::grad_pair> grads(10, vl::grad_pair{0.5f, 1});
  vl::tree_grower g(params(1), grads, all_rows(10));
  std::vector<vl::split_decision> ds{decision(0, 10, 10)};
  g.apply(ds);
  BOOST_CHECK(g.done());
  BOOST_CHECK_EQUAL(g.tree().nodes.size(), 3u);
  BOOST_CHECK_EQUAL(g.tree().depth(), 1);
  // Leaves: 5 rows of g = 0.5 each: -0.3 * 2.5 / 6.
  for (int i : {1, 2})
    BOOST_CHECK_CLOSE(g.tree().nodes[static_cast<std::size_t>(i)].value,
                      -0.3 * 2.5 / 6, 1e-4);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
