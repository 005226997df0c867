#include "learners/metrics/metrics.hpp"

#include "tests/support/random_data.hpp"
#include "tests/support/seeds.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <vector>

using namespace veil::learners;

namespace {

/// AUC as the share of (positive, negative) pairs the scores order right,
/// ties counting one half: O(n^2), straight from the definition.
double pairwise_auc(const std::vector<float>& labels,
                    const std::vector<double>& scores) {
  double pairs = 0, wins = 0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] != 1)
      continue;
    for (std::size_t j = 0; j < labels.size(); ++j) {
      if (labels[j] != 0)
        continue;
      pairs += 1;
      if (scores[i] > scores[j])
        wins += 1;
      else if (scores[i] == scores[j])
        wins += 0.5;
    }
  }
  return wins / pairs;
}

} // namespace

BOOST_AUTO_TEST_SUITE(metrics)
BOOST_AUTO_TEST_SUITE(metrics)

BOOST_AUTO_TEST_CASE(auc_equals_pairwise_count_with_ties) {
  veil::test::rng r(veil::test::metrics_seed);
  for (int levels : {2, 5, 20, 1000}) {
    for (double positive_rate : {0.1, 0.5, 0.9}) {
      BOOST_TEST_CONTEXT("levels " << levels << ", rate " << positive_rate) {
        const std::size_t n = 400;
        std::vector<float> labels(n);
        std::vector<double> scores(n);
        for (std::size_t i = 0; i < n; ++i) {
          labels[i] = r.chance(positive_rate) ? 1.0f : 0.0f;
          // Few score levels -> many ties; scores lean towards the label.
          double s =
              static_cast<double>(r.below(levels)) + labels[i] * 0.3 * levels;
          scores[i] = s / levels;
        }
        BOOST_CHECK_CLOSE(auc(labels, scores), pairwise_auc(labels, scores),
                          1e-9);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(auc_by_hand) {
  // Perfect, reversed, all tied.
  std::vector<float> y{0, 0, 1, 1};
  BOOST_CHECK_EQUAL(auc(y, std::vector<double>{0.1, 0.2, 0.3, 0.4}), 1.0);
  BOOST_CHECK_EQUAL(auc(y, std::vector<double>{0.4, 0.3, 0.2, 0.1}), 0.0);
  BOOST_CHECK_EQUAL(auc(y, std::vector<double>{0.5, 0.5, 0.5, 0.5}), 0.5);
  // Positives 0.8, 0.4; negatives 0.4, 0.1: pairs (0.8, 0.4) 1, (0.8, 0.1)
  // 1, (0.4, 0.4) 1/2, (0.4, 0.1) 1 -> 3.5 / 4.
  BOOST_CHECK_CLOSE(auc(std::vector<float>{1, 0, 1, 0},
                        std::vector<double>{0.8, 0.4, 0.4, 0.1}),
                    0.875, 1e-12);
}

BOOST_AUTO_TEST_CASE(auc_is_nan_with_one_class) {
  BOOST_CHECK(std::isnan(
      auc(std::vector<float>{1, 1, 1}, std::vector<double>{0.1, 0.5, 0.9})));
  BOOST_CHECK(
      std::isnan(auc(std::vector<float>{0, 0}, std::vector<double>{0.1, 0.5})));
  BOOST_CHECK(std::isnan(auc(std::vector<float>{}, std::vector<double>{})));
}

BOOST_AUTO_TEST_CASE(binary_metrics_by_hand) {
  // Predicted class: p > 0.5, so 0.5 itself is class 0.
  //   0.9 -> 1 (y 1 ok), 0.4 -> 0 (y 0 ok), 0.6 -> 1 (y 0 wrong),
  //   0.5 -> 0 (y 1 wrong): 2 of 4.
  std::vector<float> y{1, 0, 0, 1};
  std::vector<double> p{0.9, 0.4, 0.6, 0.5};
  BOOST_CHECK_CLOSE(binary_accuracy(y, p), 0.5, 1e-12);
  // logloss = -(ln 0.9 + ln 0.6 + ln 0.4 + ln 0.5) / 4
  //         = (0.1053605157 + 0.5108256238 + 0.9162907319 + 0.6931471806) / 4
  //         = 0.5564060130
  BOOST_CHECK_CLOSE(logloss(y, p), 0.5564060130, 1e-7);
  // Probabilities 0 and 1 are clipped to 1e-15: -ln(1e-15) = 34.538776...
  BOOST_CHECK_CLOSE(logloss(std::vector<float>{1}, std::vector<double>{0}),
                    34.538776394910684, 1e-6);
  // (1 - (1 - 1e-15) is 1e-15 only to within a double's spacing near 1.)
  BOOST_CHECK_CLOSE(logloss(std::vector<float>{0}, std::vector<double>{1}),
                    34.538776394910684, 1e-2);
  BOOST_CHECK_SMALL(logloss(std::vector<float>{1}, std::vector<double>{1}),
                    1e-14);
}

BOOST_AUTO_TEST_CASE(regression_metrics_by_hand) {
  // Errors 0.5, 0, -2: mse (0.25 + 0 + 4) / 3 = 1.41666..., rmse its root.
  std::vector<float> y{1, 2, 3};
  std::vector<double> p{1.5, 2, 1};
  BOOST_CHECK_CLOSE(mse(y, p), 4.25 / 3, 1e-12);
  BOOST_CHECK_CLOSE(rmse(y, p), std::sqrt(4.25 / 3), 1e-12);
  BOOST_CHECK_EQUAL(mse(y, std::vector<double>{1, 2, 3}), 0.0);
}

BOOST_AUTO_TEST_CASE(multiclass_metrics_by_hand) {
  // 3 rows, 3 classes, output-major (probs[c * 3 + i]).
  //   row 0: 0.7 0.2 0.1,  label 0 -> argmax 0, right; -ln 0.7
  //   row 1: 0.1 0.3 0.6,  label 2 -> argmax 2, right; -ln 0.6
  //   row 2: 0.5 0.25 0.25, label 1 -> argmax 0, wrong; -ln 0.25
  std::vector<float> y{0, 2, 1};
  std::vector<double> p{0.7, 0.1, 0.5, 0.2, 0.3, 0.25, 0.1, 0.6, 0.25};
  BOOST_CHECK_CLOSE(multiclass_accuracy(y, p, 3), 2.0 / 3, 1e-12);
  // (0.3566749439 + 0.5108256238 + 1.3862943611) / 3 = 0.7512649763
  BOOST_CHECK_CLOSE(multiclass_logloss(y, p, 3), 0.7512649763, 1e-7);
  // Ties go to the lower class: 0.4 0.4 0.2 predicts class 0.
  std::vector<double> tie{0.4, 0.4, 0.2};
  BOOST_CHECK_EQUAL(multiclass_accuracy(std::vector<float>{0}, tie, 3), 1.0);
  BOOST_CHECK_EQUAL(multiclass_accuracy(std::vector<float>{1}, tie, 3), 0.0);
  // A zero probability of the true class is clipped at 1e-15.
  std::vector<double> zero{1, 0};
  BOOST_CHECK_CLOSE(multiclass_logloss(std::vector<float>{1}, zero, 2),
                    34.538776394910684, 1e-6);
}

BOOST_AUTO_TEST_CASE(evaluate_and_default_metric) {
  objective b(objective_kind::binary_logistic);
  std::vector<float> y{0, 1, 1, 0};
  std::vector<double> p{0.2, 0.7, 0.4, 0.1};
  auto m = evaluate(b, y, p);
  BOOST_REQUIRE_EQUAL(m.size(), 3u);
  BOOST_CHECK_CLOSE(m.at("auc"), 1.0, 1e-12); // positives 0.7, 0.4 above
  BOOST_CHECK_CLOSE(m.at("accuracy"), 0.75, 1e-12);
  // -(ln 0.8 + ln 0.7 + ln 0.4 + ln 0.9) / 4
  double ll =
      -(std::log(0.8) + std::log(0.7) + std::log(0.4) + std::log(0.9)) / 4;
  BOOST_CHECK_CLOSE(m.at("logloss"), ll, 1e-10);
  BOOST_CHECK(default_metric(b) == std::make_pair(std::string("auc"), true));

  objective r(objective_kind::reg_squarederror);
  m = evaluate(r, std::vector<float>{1, 3}, std::vector<double>{2, 3});
  BOOST_REQUIRE_EQUAL(m.size(), 2u);
  BOOST_CHECK_CLOSE(m.at("mse"), 0.5, 1e-12);
  BOOST_CHECK_CLOSE(m.at("rmse"), std::sqrt(0.5), 1e-12);
  BOOST_CHECK(default_metric(r) == std::make_pair(std::string("rmse"), false));

  objective s(objective_kind::multi_softmax, 2);
  // Rows: (0.3, 0.7) label 1, (0.6, 0.4) label 1.
  m = evaluate(s, std::vector<float>{1, 1},
               std::vector<double>{0.3, 0.6, 0.7, 0.4});
  BOOST_REQUIRE_EQUAL(m.size(), 2u);
  BOOST_CHECK_CLOSE(m.at("accuracy"), 0.5, 1e-12);
  BOOST_CHECK_CLOSE(m.at("logloss"), -(std::log(0.7) + std::log(0.4)) / 2,
                    1e-10);
  BOOST_CHECK(default_metric(s) ==
              std::make_pair(std::string("logloss"), false));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
