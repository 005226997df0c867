// max_delta_step as XGBoost 1.7 defines it (src/tree/param.h): CalcWeight
// clamps the weight to [-max_delta_step, max_delta_step] when it is not 0,
// and CalcGain then scores the clamped weight w as
// CalcGainGivenWeight = -(2 G w + (H + lambda) w^2).
#include "learners/split/split.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "learners/input_error.hpp"
#include "tests/learners/split/gain_tolerance.hpp"

using namespace veil::learners;

namespace {

tree_params params(double lambda, double min_child_weight,
                   double max_delta_step) {
  tree_params p;
  p.lambda = lambda;
  p.min_child_weight = min_child_weight;
  p.max_delta_step = max_delta_step;
  p.gamma = 0;
  return p;
}

using veil::test::gain_tol_percent;

/// The message of the input_error that validate() throws, or "".
std::string validation_error(const tree_params& p) {
  try {
    p.validate();
  } catch (const veil::input_error& e) {
    return e.what();
  }
  return "";
}

} // namespace

BOOST_AUTO_TEST_SUITE(split)
BOOST_AUTO_TEST_SUITE(max_delta_step)

BOOST_AUTO_TEST_CASE(off_by_default) {
  BOOST_CHECK_EQUAL(tree_params{}.max_delta_step, 0.0);
}

BOOST_AUTO_TEST_CASE(clamps_positive_weight) {
  // lambda 1, min_child_weight 1, max_delta_step 0.5.
  // G = -4, H = 3: -G / (H + 1) = 1, clamped to 0.5; the gain of w = 0.5 is
  // -(2 * -4 * 0.5 + 4 * 0.25) = -(-4 + 1) = 3 (unclamped: 16 / 4 = 4).
  auto p = params(1, 1, 0.5);
  BOOST_CHECK_EQUAL(calc_weight(p, {-4, 3}), 0.5);
  BOOST_CHECK_CLOSE(calc_gain(p, {-4, 3}), 3.0, 1e-12);
}

BOOST_AUTO_TEST_CASE(clamps_negative_weight) {
  // G = 3, H = 1: -3 / 2 = -1.5, clamped to -0.5; the gain of w = -0.5 is
  // -(2 * 3 * -0.5 + 2 * 0.25) = -(-3 + 0.5) = 2.5 (unclamped: 9 / 2).
  auto p = params(1, 1, 0.5);
  BOOST_CHECK_EQUAL(calc_weight(p, {3, 1}), -0.5);
  BOOST_CHECK_CLOSE(calc_gain(p, {3, 1}), 2.5, 1e-12);
  // lambda 0, max_delta_step 2: G = 10, H = 1: -10 clamped to -2; gain
  // -(2 * 10 * -2 + 1 * 4) = 36 (unclamped: 100).
  auto q = params(0, 0, 2);
  BOOST_CHECK_EQUAL(calc_weight(q, {10, 1}), -2.0);
  BOOST_CHECK_CLOSE(calc_gain(q, {10, 1}), 36.0, 1e-12);
}

BOOST_AUTO_TEST_CASE(weights_inside_the_bound_are_unchanged) {
  auto p = params(1, 1, 0.5);
  // G = -1, H = 3: w = 0.25 < 0.5: weight and gain as without the limit,
  // gain -(2 * -1 * 0.25 + 4 * 0.0625) = 0.25 = 1 / 4.
  BOOST_CHECK_CLOSE(calc_weight(p, {-1, 3}), 0.25, 1e-12);
  BOOST_CHECK_CLOSE(calc_gain(p, {-1, 3}), 0.25, 1e-12);
  // G = -2, H = 3: w = 0.5, on the bound (XGBoost clamps only |w| > bound):
  // gain 4 / 4 = 1.
  BOOST_CHECK_EQUAL(calc_weight(p, {-2, 3}), 0.5);
  BOOST_CHECK_CLOSE(calc_gain(p, {-2, 3}), 1.0, 1e-12);
  // G = 0: weight 0, gain 0.
  BOOST_CHECK_EQUAL(calc_weight(p, {0, 3}), 0.0);
  BOOST_CHECK_EQUAL(calc_gain(p, {0, 3}), 0.0);
}

BOOST_AUTO_TEST_CASE(min_child_weight_still_zeroes) {
  // H = 0.5 < min_child_weight 1: weight 0 and gain 0, clamp or not.
  auto p = params(1, 1, 0.5);
  BOOST_CHECK_EQUAL(calc_weight(p, {3, 0.5}), 0.0);
  BOOST_CHECK_EQUAL(calc_gain(p, {3, 0.5}), 0.0);
  // H <= 0, even with min_child_weight 0.
  auto q = params(1, 0, 0.5);
  BOOST_CHECK_EQUAL(calc_weight(q, {3, 0}), 0.0);
  BOOST_CHECK_EQUAL(calc_gain(q, {3, 0}), 0.0);
  BOOST_CHECK_EQUAL(calc_weight(q, {3, -1}), 0.0);
  BOOST_CHECK_EQUAL(calc_gain(q, {3, -1}), 0.0);
}

BOOST_AUTO_TEST_CASE(off_is_the_old_formula) {
  // max_delta_step 0: bit for bit G^2 / (H + lambda) and -G / (H + lambda),
  // however large the weight.
  auto p = params(1.5, 0.25, 0);
  std::vector<grad_sum> sums{
      {-4, 3}, {3, 1}, {1e6, 0.5}, {-0.1, 100}, {7.25, 0.3}};
  for (const auto& s : sums) {
    BOOST_CHECK_EQUAL(calc_gain(p, s), (s.g * s.g) / (s.h + 1.5));
    BOOST_CHECK_EQUAL(calc_weight(p, s), -s.g / (s.h + 1.5));
  }
}

BOOST_AUTO_TEST_CASE(clamped_gain_is_below_unclamped_gain) {
  // Clamping moves w away from the optimum -G / (H + lambda), so the score
  // drops, and never below 0: for |w| <= |G| / (H + lambda) the score
  // |w| (2 |G| - (H + lambda) |w|) is >= 0.
  auto off = params(1, 0, 0);
  for (double m : {0.01, 0.1, 0.7, 3.0})
    for (double g : {-50.0, -2.0, -0.3, 0.3, 2.0, 50.0})
      for (double h : {0.1, 1.0, 10.0}) {
        auto on = params(1, 0, m);
        grad_sum s{g, h};
        BOOST_CHECK_LE(calc_gain(on, s), calc_gain(off, s) * (1 + 1e-12));
        BOOST_CHECK_GE(calc_gain(on, s), 0.0);
        BOOST_CHECK_LE(std::abs(calc_weight(on, s)), m);
      }
}

BOOST_AUTO_TEST_CASE(changes_the_best_split) {
  // One feature of 3 bins, no missing values, lambda 1, min_child_weight 0:
  // bin 0 (-3, 1), bin 1 (-3, 20), bin 2 (6, 20); node (0, 41), parent 0.
  hist_layout layout(std::vector<int>{3});
  std::vector<grad_sum> hist{{-3, 1}, {-3, 20}, {6, 20}, {0, 0}};
  grad_sum node{0, 41};
  // Without a limit:
  //   bin 0: L (-3, 1), R (3, 40): 9/2 + 9/41 = 387/82
  //   bin 1: L (-6, 21), R (6, 20): 36/22 + 36/21 = 774/231
  // bin 0 wins.
  auto s = best_split(params(1, 0, 0), layout, hist, node);
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.bin, 0);
  BOOST_CHECK_CLOSE(s.gain, 387.0 / 82.0, gain_tol_percent);
  // max_delta_step 0.25:
  //   bin 0: L w = 1.5 -> 0.25: -(2 * -3 * 0.25 + 2 * 0.0625) = 1.375;
  //          R w = -3/41, inside: 9/41; total 1.375 + 9/41
  //   bin 1: L w = 6/22 -> 0.25: -(2 * -6 * 0.25 + 22 * 0.0625) = 1.625;
  //          R w = -6/21 -> -0.25: -(2 * 6 * -0.25 + 21 * 0.0625) = 1.6875;
  //          total 3.3125
  // bin 1 wins.
  s = best_split(params(1, 0, 0.25), layout, hist, node);
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.bin, 1);
  BOOST_CHECK_CLOSE(s.gain, 3.3125, gain_tol_percent);
  BOOST_CHECK(s.left == (grad_sum{-6, 21}));
  BOOST_CHECK(s.right == (grad_sum{6, 20}));
  // The shared split of this one node agrees.
  std::vector<std::span<const grad_sum>> hists{hist};
  std::vector<grad_sum> sums{node};
  auto t = best_shared_split(params(1, 0, 0.25), layout, hists, sums);
  BOOST_CHECK_EQUAL(t.bin, 1);
  BOOST_CHECK_CLOSE(t.gain, 3.3125, gain_tol_percent);
}

BOOST_AUTO_TEST_CASE(parent_gain_uses_the_clamped_weight) {
  // Node (-4, 3), lambda 1, min_child_weight 0, max_delta_step 0.5: parent
  // score 3 (see clamps_positive_weight). One feature of 2 bins:
  // bin 0 (-4, 1), bin 1 (0, 2): L w = 2 -> 0.5: -(2 * -4 * 0.5 + 2 * 0.25)
  // = 3.5; R (0, 2): 0. Split gain 3.5 - 3 = 0.5 (unclamped: 8 - 4 = 4).
  hist_layout layout(std::vector<int>{2});
  std::vector<grad_sum> hist{{-4, 1}, {0, 2}, {0, 0}};
  auto s = best_split(params(1, 0, 0.5), layout, hist, {-4, 3});
  BOOST_REQUIRE(s.valid());
  BOOST_CHECK_EQUAL(s.bin, 0);
  BOOST_CHECK_CLOSE(s.gain, 0.5, gain_tol_percent);
  BOOST_CHECK_CLOSE(best_split(params(1, 0, 0), layout, hist, {-4, 3}).gain,
                    4.0, gain_tol_percent);
}

BOOST_AUTO_TEST_CASE(validation) {
  tree_params p;
  p.max_delta_step = 0.7;
  BOOST_CHECK_NO_THROW(p.validate());
  p.max_delta_step = 0;
  BOOST_CHECK_NO_THROW(p.validate());
  for (double bad : {-0.1, std::numeric_limits<double>::infinity(),
                     std::numeric_limits<double>::quiet_NaN()}) {
    p.max_delta_step = bad;
    auto what = validation_error(p);
    BOOST_CHECK_MESSAGE(what.find("max_delta_step") != std::string::npos,
                        "max_delta_step = " << bad << ": \"" << what << "\"");
  }
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
