#include "learners/split/split.hpp"

#include <boost/test/unit_test.hpp>

#include <vector>

#include "tests/learners/split/gain_tolerance.hpp"

using namespace veil::learners;

namespace {

tree_params params(double lambda, double min_child_weight) {
  tree_params p;
  p.lambda = lambda;
  p.min_child_weight = min_child_weight;
  p.gamma = 0;
  return p;
}

using veil::test::gain_tol_percent;

/// The hand-built histogram of the best_split example, lambda = 1.
///
/// Feature 0: 3 bins, no missing values.
///   bin 0: (G, H) = (-3, 2), bin 1: (1, 1), bin 2: (4, 3), missing: (0, 0).
/// Feature 1: 3 bins and missing values.
///   bin 0: (-4, 2), bin 1: (3, 1), bin 2: (1, 1), missing: (2, 2).
/// Both sum to the node's (G, H) = (2, 6).
struct example {
  hist_layout layout{std::vector<int>{3, 3}};
  std::vector<grad_sum> hist{{-3, 2}, {1, 1}, {4, 3}, {0, 0},
                             {-4, 2}, {3, 1}, {1, 1}, {2, 2}};
  grad_sum node{2, 6};
};

split_candidate candidate(double gain, int feature, int bin, bool dl) {
  split_candidate c;
  c.gain = gain;
  c.feature = feature;
  c.bin = bin;
  c.default_left = dl;
  return c;
}

} // namespace

BOOST_AUTO_TEST_SUITE(split)
BOOST_AUTO_TEST_SUITE(split)

BOOST_AUTO_TEST_CASE(calc_gain_and_weight_by_hand) {
  auto p = params(1, 1);
  // G = -4, H = 3, lambda = 1: gain 16 / 4 = 4, weight 4 / 4 = 1.
  BOOST_CHECK_CLOSE(calc_gain(p, {-4, 3}), 4.0, 1e-12);
  BOOST_CHECK_CLOSE(calc_weight(p, {-4, 3}), 1.0, 1e-12);
  // G = 3, H = 1 (= min_child_weight, still allowed): 9 / 2 = 4.5, -3 / 2.
  BOOST_CHECK_CLOSE(calc_gain(p, {3, 1}), 4.5, 1e-12);
  BOOST_CHECK_CLOSE(calc_weight(p, {3, 1}), -1.5, 1e-12);
  // H = 0.5 < min_child_weight = 1: both 0.
  BOOST_CHECK_EQUAL(calc_gain(p, {3, 0.5}), 0.0);
  BOOST_CHECK_EQUAL(calc_weight(p, {3, 0.5}), 0.0);
  // lambda = 0, min_child_weight = 0: G = 3, H = 2: 9 / 2 = 4.5, -3 / 2.
  auto q = params(0, 0);
  BOOST_CHECK_CLOSE(calc_gain(q, {3, 2}), 4.5, 1e-12);
  BOOST_CHECK_CLOSE(calc_weight(q, {3, 2}), -1.5, 1e-12);
  // H = 0 (an empty node) or negative: 0 even with min_child_weight 0.
  BOOST_CHECK_EQUAL(calc_gain(q, {3, 0}), 0.0);
  BOOST_CHECK_EQUAL(calc_weight(q, {3, 0}), 0.0);
  BOOST_CHECK_EQUAL(calc_gain(q, {3, -1}), 0.0);
  BOOST_CHECK_EQUAL(calc_weight(q, {3, -1}), 0.0);
  // lambda = 2.5: G = -1.5, H = 0.5: 2.25 / 3 = 0.75, 1.5 / 3 = 0.5.
  auto r = params(2.5, 0);
  BOOST_CHECK_CLOSE(calc_gain(r, {-1.5, 0.5}), 0.75, 1e-12);
  BOOST_CHECK_CLOSE(calc_weight(r, {-1.5, 0.5}), 0.5, 1e-12);
}

BOOST_AUTO_TEST_CASE(best_split_by_hand) {
  example x;
  auto p = params(1, 0);
  // Parent: G^2 / (H + 1) = 4 / 7.
  //
  // Feature 0 has no missing values: only "missing right" is enumerated.
  //   bin 0: L = (-3, 2), R = (5, 4): 9/3 + 25/5 = 8      -> 8 - 4/7
  //   bin 1: L = (-2, 3), R = (4, 3): 4/4 + 16/4 = 5      -> 5 - 4/7
  //   bin 2: L = (2, 6),  R = (0, 0): 4/7 + 0             -> 0
  // Feature 1, missing right (R holds the missing (2, 2)):
  //   bin 0: L = (-4, 2), R = (6, 4): 16/3 + 36/5 = 188/15 -> 188/15 - 4/7
  //   bin 1: L = (-1, 3), R = (3, 3): 1/4 + 9/4 = 5/2      -> 5/2 - 4/7
  //   bin 2: L = (0, 4),  R = (2, 2): 0 + 4/3              -> 4/3 - 4/7
  // Feature 1, missing left (L holds the missing):
  //   bin 1: L = (1, 5),  R = (1, 1): 1/6 + 1/2 = 2/3      -> 2/3 - 4/7
  //   bin 0: L = (-2, 4), R = (4, 2): 4/5 + 16/3 = 92/15   -> 92/15 - 4/7
  // Best: feature 1, bin 0, missing right, gain 188/15 - 4/7 = 1256/105.
  auto s = best_split(p, x.layout, x.hist, x.node);
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.feature, 1);
  BOOST_CHECK_EQUAL(s.bin, 0);
  BOOST_CHECK_EQUAL(s.default_left, false);
  BOOST_CHECK_CLOSE(s.gain, 1256.0 / 105.0, gain_tol_percent);
  BOOST_CHECK(s.left == (grad_sum{-4, 2}));
  BOOST_CHECK(s.right == (grad_sum{6, 4}));
}

BOOST_AUTO_TEST_CASE(min_child_weight_excludes_candidates) {
  example x;
  // min_child_weight 2.5: a candidate needs H >= 2.5 on both sides. Of the
  // list in best_split_by_hand only these remain:
  //   feature 0 bin 1, L = (-2, 3), R = (4, 3): 5 - 4/7 = 31/7
  //   feature 1 bin 1 missing right, L = (-1, 3), R = (3, 3): 5/2 - 4/7
  // (The parent's H = 6 passes too, so its gain is still 4/7.)
  auto s = best_split(params(1, 2.5), x.layout, x.hist, x.node);
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.feature, 0);
  BOOST_CHECK_EQUAL(s.bin, 1);
  BOOST_CHECK_EQUAL(s.default_left, false);
  BOOST_CHECK_CLOSE(s.gain, 31.0 / 7.0, gain_tol_percent);
  BOOST_CHECK(s.left == (grad_sum{-2, 3}));
  BOOST_CHECK(s.right == (grad_sum{4, 3}));

  // min_child_weight 3.5: both sides would need H >= 3.5, 7 in all, but the
  // node holds H = 6. Nothing qualifies: the result is invalid.
  auto none = best_split(params(1, 3.5), x.layout, x.hist, x.node);
  BOOST_CHECK(!none.valid());
  // Above the parent's own hessian: nothing either.
  BOOST_CHECK(!best_split(params(1, 10), x.layout, x.hist, x.node).valid());
}

BOOST_AUTO_TEST_CASE(missing_right_strictly_better) {
  // One feature, 2 bins: bin 0 (-2, 1), bin 1 (2, 1), missing (3, 1).
  // Node (3, 3), lambda 1: parent 9/4.
  //   missing right, bin 0: L = (-2, 1), R = (5, 2): 4/2 + 25/3 = 31/3
  //                         -> 31/3 - 9/4 = 97/12
  //   missing right, bin 1: L = (0, 2), R = (3, 1): 0 + 9/2 -> 9/4
  //   missing left,  bin 0: L = (1, 2), R = (2, 1): 1/3 + 4/2 -> 1/12
  hist_layout layout(std::vector<int>{2});
  std::vector<grad_sum> hist{{-2, 1}, {2, 1}, {3, 1}};
  auto s = best_split(params(1, 0), layout, hist, {3, 3});
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.feature, 0);
  BOOST_CHECK_EQUAL(s.bin, 0);
  BOOST_CHECK_EQUAL(s.default_left, false);
  BOOST_CHECK_CLOSE(s.gain, 97.0 / 12.0, gain_tol_percent);
  BOOST_CHECK(s.left == (grad_sum{-2, 1}));
  BOOST_CHECK(s.right == (grad_sum{5, 2}));
}

BOOST_AUTO_TEST_CASE(missing_left_strictly_better) {
  // The mirror image: missing (-3, 1), node (-3, 3), parent 9/4.
  //   missing left,  bin 0: L = (-5, 2), R = (2, 1): 25/3 + 4/2 = 31/3
  //                         -> 97/12
  //   missing right, bin 0: L = (-2, 1), R = (-1, 2): 4/2 + 1/3 -> 1/12
  //   missing right, bin 1: L = (0, 2), R = (-3, 1): 9/2 -> 9/4
  hist_layout layout(std::vector<int>{2});
  std::vector<grad_sum> hist{{-2, 1}, {2, 1}, {-3, 1}};
  auto s = best_split(params(1, 0), layout, hist, {-3, 3});
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.bin, 0);
  BOOST_CHECK_EQUAL(s.default_left, true);
  BOOST_CHECK_CLOSE(s.gain, 97.0 / 12.0, gain_tol_percent);
  BOOST_CHECK(s.left == (grad_sum{-5, 2}));
  BOOST_CHECK(s.right == (grad_sum{2, 1}));
}

BOOST_AUTO_TEST_CASE(tie_break_prefers_lower_feature) {
  // Features 0, 1 and 2 have the same histogram, so the same best gain:
  // bin 0 (-1, 1), bin 1 (1, 1), lambda 1: 1/2 + 1/2 = 1 - 0.
  hist_layout layout(std::vector<int>{2, 2, 2});
  std::vector<grad_sum> same{{-1, 1}, {1, 1}, {0, 0}};
  std::vector<grad_sum> hist;
  for (int f = 0; f < 3; ++f)
    hist.insert(hist.end(), same.begin(), same.end());
  auto s = best_split(params(1, 0), layout, hist, {0, 2});
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.feature, 0);
  BOOST_CHECK_EQUAL(s.bin, 0);
  BOOST_CHECK_CLOSE(s.gain, 1.0, gain_tol_percent);
  // A strictly better feature 2 wins over the tie: (-2, 1), (2, 1) gives
  // 4/2 + 4/2 = 4 (node (0, 2), parent 0).
  hist[6] = {-2, 1};
  hist[7] = {2, 1};
  s = best_split(params(1, 0), layout, hist, {0, 2});
  BOOST_CHECK_EQUAL(s.feature, 2);
  BOOST_CHECK_CLOSE(s.gain, 4.0, gain_tol_percent);
}

BOOST_AUTO_TEST_CASE(better_than_order) {
  auto a = candidate(2.0, 3, 5, false);
  BOOST_CHECK(a.better_than(split_candidate{}));
  BOOST_CHECK(!split_candidate{}.better_than(a));
  BOOST_CHECK(!split_candidate{}.better_than(split_candidate{}));
  // Higher gain first, whatever the feature.
  BOOST_CHECK(candidate(2.5, 7, 0, true).better_than(a));
  BOOST_CHECK(!a.better_than(candidate(2.5, 7, 0, true)));
  // Negative gains still order.
  BOOST_CHECK(candidate(-1, 0, 0, false).better_than(split_candidate{}));
  BOOST_CHECK(
      candidate(-1, 1, 0, false).better_than(candidate(-2, 0, 0, false)));
  // Equal gain: lower feature.
  BOOST_CHECK(candidate(2.0, 1, 9, true).better_than(a));
  BOOST_CHECK(!a.better_than(candidate(2.0, 1, 9, true)));
  // Equal gain and feature: missing right first, then XGBoost's enumeration
  // order (ascending bins missing right, descending bins missing left).
  BOOST_CHECK(
      candidate(2.0, 3, 7, false).better_than(candidate(2.0, 3, 1, true)));
  BOOST_CHECK(
      candidate(2.0, 3, 1, false).better_than(candidate(2.0, 3, 2, false)));
  BOOST_CHECK(
      candidate(2.0, 3, 2, true).better_than(candidate(2.0, 3, 1, true)));
  // Irreflexive.
  BOOST_CHECK(!a.better_than(a));
}

BOOST_AUTO_TEST_CASE(features_without_bins_are_skipped) {
  // Feature 0 has no bins (all missing): only its missing slot. Feature 1:
  // bin 0 (-1, 1), bin 1 (1, 1); node (0, 2); gain 1/2 + 1/2 = 1.
  hist_layout layout(std::vector<int>{0, 2});
  std::vector<grad_sum> hist{{0, 2}, {-1, 1}, {1, 1}, {0, 0}};
  auto s = best_split(params(1, 0), layout, hist, {0, 2});
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.feature, 1);
  BOOST_CHECK_CLOSE(s.gain, 1.0, gain_tol_percent);
}

BOOST_AUTO_TEST_CASE(shared_split_sums_gains_over_nodes) {
  // Two nodes, two features of 2 bins, no missing values; lambda 1.
  // Node A, sum (0, 2), parent 0:
  //   f0: (-2, 1), (2, 1) -> bin 0: 4/2 + 4/2 = 4
  //   f1: ( 1, 1), (-1, 1) -> bin 0: 1/2 + 1/2 = 1
  // Node B, sum (2, 2), parent 4/3:
  //   f0: ( 1, 1), (1, 1) -> bin 0: 1/2 + 1/2 - 4/3 = -1/3
  //   f1: ( 3, 1), (-1, 1) -> bin 0: 9/2 + 1/2 - 4/3 = 11/3
  // Bin 1 sends everything left: 0 for each node. A alone prefers f0, B
  // alone f1; the sums are f0: 4 - 1/3 = 11/3, f1: 1 + 11/3 = 14/3.
  hist_layout layout(std::vector<int>{2, 2});
  std::vector<grad_sum> a{{-2, 1}, {2, 1}, {0, 0}, {1, 1}, {-1, 1}, {0, 0}};
  std::vector<grad_sum> b{{1, 1}, {1, 1}, {0, 0}, {3, 1}, {-1, 1}, {0, 0}};
  std::vector<std::span<const grad_sum>> hists{a, b};
  std::vector<grad_sum> sums{{0, 2}, {2, 2}};
  auto s = best_shared_split(params(1, 0), layout, hists, sums);
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.feature, 1);
  BOOST_CHECK_EQUAL(s.bin, 0);
  BOOST_CHECK_EQUAL(s.default_left, false);
  BOOST_CHECK_CLOSE(s.gain, 14.0 / 3.0, gain_tol_percent);
  // left/right are summed over the nodes: L = (1, 1) + (3, 1).
  BOOST_CHECK(s.left == (grad_sum{4, 2}));
  BOOST_CHECK(s.right == (grad_sum{-2, 2}));
  // Each node on its own picks differently.
  BOOST_CHECK_EQUAL(best_split(params(1, 0), layout, a, sums[0]).feature, 0);
  BOOST_CHECK_EQUAL(best_split(params(1, 0), layout, b, sums[1]).feature, 1);
}

BOOST_AUTO_TEST_CASE(shared_split_min_child_weight_contributes_zero) {
  // One feature of 2 bins, min_child_weight 1.5, lambda 1.
  // Node A (0, 4): (-2, 2), (2, 2) -> bin 0: 4/3 + 4/3 = 8/3.
  // Node B (2, 2): (1, 1), (1, 1) -> bin 0 leaves H = 1 < 1.5 per side:
  //   contributes 0 (not its negative 1/2 + 1/2 - 4/3 = -1/3).
  // Bin 1 (all left, nothing right): H_R = 0 < 1.5, 0 for both.
  hist_layout layout(std::vector<int>{2});
  std::vector<grad_sum> a{{-2, 2}, {2, 2}, {0, 0}};
  std::vector<grad_sum> b{{1, 1}, {1, 1}, {0, 0}};
  std::vector<std::span<const grad_sum>> hists{a, b};
  std::vector<grad_sum> sums{{0, 4}, {2, 2}};
  auto s = best_shared_split(params(1, 1.5), layout, hists, sums);
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.bin, 0);
  BOOST_CHECK_CLOSE(s.gain, 8.0 / 3.0, gain_tol_percent);
  BOOST_CHECK(s.left == (grad_sum{-1, 3}));
  BOOST_CHECK(s.right == (grad_sum{3, 3}));
}

BOOST_AUTO_TEST_CASE(shared_split_with_missing_in_one_node) {
  // One feature of 2 bins, lambda 1, min_child_weight 0.
  // Node A (0, 3): bins (-2, 1), (0, 1), missing (2, 1); parent 0.
  // Node B (0, 2): bins (-1, 1), (1, 1), no missing; parent 0.
  // A has missing values, so both directions are enumerated for both.
  //   bin 0, missing right: A: L (-2, 1), R (2, 2): 4/2 + 4/3 = 10/3
  //                         B: L (-1, 1), R (1, 1): 1/2 + 1/2 = 1
  //                         total 13/3
  //   bin 1, missing right: A: L (-2, 2), R (2, 1): 4/3 + 4/2 = 10/3
  //                         B: L (0, 2), R (0, 0): 0; total 10/3
  //   bin 0, missing left:  A: L (0, 2), R (0, 1): 0
  //                         B: L (-1, 1), R (1, 1): 1; total 1
  hist_layout layout(std::vector<int>{2});
  std::vector<grad_sum> a{{-2, 1}, {0, 1}, {2, 1}};
  std::vector<grad_sum> b{{-1, 1}, {1, 1}, {0, 0}};
  std::vector<std::span<const grad_sum>> hists{a, b};
  std::vector<grad_sum> sums{{0, 3}, {0, 2}};
  auto s = best_shared_split(params(1, 0), layout, hists, sums);
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.bin, 0);
  BOOST_CHECK_EQUAL(s.default_left, false);
  BOOST_CHECK_CLOSE(s.gain, 13.0 / 3.0, gain_tol_percent);
  BOOST_CHECK(s.left == (grad_sum{-3, 2}));
  BOOST_CHECK(s.right == (grad_sum{3, 3}));
}

BOOST_AUTO_TEST_CASE(shared_split_of_one_node_is_best_split) {
  // With a single node, the shared split is the ordinary one: the
  // best_split_by_hand example again (feature 1, bin 0, missing right).
  example x;
  std::vector<std::span<const grad_sum>> hists{x.hist};
  std::vector<grad_sum> sums{x.node};
  auto s = best_shared_split(params(1, 0), x.layout, hists, sums);
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.feature, 1);
  BOOST_CHECK_EQUAL(s.bin, 0);
  BOOST_CHECK_EQUAL(s.default_left, false);
  BOOST_CHECK_CLOSE(s.gain, 1256.0 / 105.0, gain_tol_percent);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
