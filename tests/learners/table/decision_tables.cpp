// Privet's plaintext reference (spec privet §3): the leaf numbering of
// Fig. 4, equal-frequency buckets, and tables that find the one feature
// that matters and fit its leaves.
#include "learners/table/decision_tables.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <random>

#include "learners/input_error.hpp"

using namespace veil::learners;

BOOST_AUTO_TEST_SUITE(table)
BOOST_AUTO_TEST_SUITE(decision_tables)

// Fig. 4: Height < 170, Weight < 60, Salary < 10000; (175, 55, 11000)
// gives b = (1, 0, 1): leaf 5.
BOOST_AUTO_TEST_CASE(leaf_numbering_of_fig_4) {
  dataset x(1, {"height", "weight", "salary"});
  x.value(0, 0) = 175;
  x.value(0, 1) = 55;
  x.value(0, 2) = 11000;
  table_model m;
  m.tables.push_back({{{0, 170}, {1, 60}, {2, 10000}}, std::vector<double>(8)});
  BOOST_TEST(m.leaf(0, x, 0) == 5u);
}

BOOST_AUTO_TEST_CASE(buckets_are_equal_frequency_with_floor_bounds) {
  auto b = table_bucket_bounds(10, 4);
  BOOST_TEST((b == std::vector<std::size_t>{0, 2, 5, 7, 10}));
  std::vector<float> v{3, 1, 2, 1};
  BOOST_TEST((stable_order(v) == std::vector<std::uint32_t>{1, 3, 2, 0}));
}

// Regression on y = 3 [x0 ≥ 0.5] − 1 with a noise feature: the first
// level tests x0 near 0.5, and the leaves are each side's mean.
BOOST_AUTO_TEST_CASE(finds_the_feature_that_matters) {
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> u(0, 1);
  dataset x(400, {"noise", "x0"});
  x.labels().resize(400);
  for (std::size_t i = 0; i < 400; ++i) {
    x.value(i, 0) = static_cast<float>(u(g));
    x.value(i, 1) = static_cast<float>(u(g));
    x.labels()[i] = x.value(i, 1) >= 0.5f ? 2.0f : -1.0f;
  }
  table_params p;
  p.task = table_task::regression;
  p.tables = 1;
  p.depth = 1;
  p.buckets = 8;
  p.lambda = 1e-6;
  auto m = train_tables(x, p);
  BOOST_TEST(m.tables[0].tests[0].feature == 1);
  BOOST_TEST(std::abs(m.tables[0].tests[0].threshold - 0.5f) < 0.1f);
  // Leaves: −G/(H + λ) = each side's mean label (g = −y, h = 1 at ŷ = 0).
  double sum[2] = {0, 0}, count[2] = {0, 0};
  for (std::size_t i = 0; i < 400; ++i) {
    auto side = x.value(i, 1) >= m.tables[0].tests[0].threshold ? 1 : 0;
    sum[side] += x.labels()[i];
    count[side] += 1;
  }
  for (int side = 0; side < 2; ++side)
    BOOST_TEST(std::abs(m.tables[0].leaves[static_cast<std::size_t>(side)] -
                        sum[side] / (count[side] + 1e-6)) < 1e-9);
}

// As a Veil model (full trees in heap order, leaves in float): the same
// scores, up to the leaves' rounding to float.
BOOST_AUTO_TEST_CASE(tables_as_a_model_predict_the_same) {
  std::mt19937_64 g(5);
  std::normal_distribution<double> z(0, 1);
  dataset x(300, {"a", "b", "c"});
  x.labels().resize(300);
  for (std::size_t i = 0; i < 300; ++i) {
    for (std::size_t j = 0; j < 3; ++j)
      x.value(i, j) = static_cast<float>(z(g));
    x.labels()[i] = x.value(i, 0) - x.value(i, 2) > 0 ? 1.0f : 0.0f;
  }
  table_params p;
  p.tables = 4;
  p.depth = 3;
  p.buckets = 8;
  auto tables = train_tables(x, p);
  auto m = to_model(tables, table_task::binary, x.feature_names());
  BOOST_TEST(m.weak_learner == "decision_table");
  BOOST_TEST(m.trees.size() == 4u);
  auto want = tables.predict(x);
  auto got = m.predict_margin(x);
  for (std::size_t i = 0; i < 300; ++i)
    BOOST_TEST(std::abs(got[i] - want[i]) < 1e-5 * (1 + std::abs(want[i])));
}

BOOST_AUTO_TEST_CASE(approximations_are_close_to_the_functions) {
  for (double v = -30; v <= 30; v += 0.5)
    BOOST_TEST(std::abs(robust_sigmoid(v) - 1 / (1 + std::exp(-v))) < 1e-3);
  // Newton's relative error after K steps from 1 is (1 − y/2^s)^(2^K).
  for (double y : {1.0, 3.0, 100.0, 16513.0}) {
    double e = std::pow(1 - y / 32768, 524288); // s = 15, K = 19
    BOOST_TEST(std::abs(scaled_division(7, y, 15, 19) - 7 / y) <=
               (e + 1e-15) * 7 / y);
  }
}

BOOST_AUTO_TEST_CASE(refuses_missing_values_and_too_many_buckets) {
  dataset x(4, {"a"});
  x.labels() = {0, 1, 0, 1};
  for (std::size_t i = 0; i < 4; ++i)
    x.value(i, 0) = static_cast<float>(i);
  table_params p;
  p.buckets = 8;
  BOOST_CHECK_THROW(train_tables(x, p), veil::input_error);
  p.buckets = 2;
  x.value(2, 0) = missing_value;
  BOOST_CHECK_THROW(train_tables(x, p), veil::input_error);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
