#include "learners/objective/objective.hpp"

#include "learners/input_error.hpp"
#include "tests/support/random_data.hpp"
#include "tests/support/seeds.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <utility>
#include <vector>

// The suite is called objective too: spell the class with its namespace.
namespace vl = veil::learners;

namespace {

// --- The losses, written here from their definitions. ---

double sigmoid(double m) {
  return 1.0 / (1.0 + std::exp(-m));
}

/// logloss(y, sigmoid(m)) = -y log p - (1 - y) log(1 - p), in the stable
/// form log(1 + e^-m) for y = 1 and log(1 + e^m) for y = 0.
double logistic_loss(double y, double m) {
  return y * std::log1p(std::exp(-m)) + (1 - y) * std::log1p(std::exp(m));
}

double squared_loss(double y, double m) {
  return 0.5 * (m - y) * (m - y);
}

/// The largest margin mx and z = sum_c e^{m_c - mx}: softmax's normalizer
/// with the max taken out, so that nothing overflows.
std::pair<double, double> max_and_normalizer(const std::vector<double>& m) {
  double mx = m[0];
  for (double v : m)
    mx = std::max(mx, v);
  double z = 0;
  for (double v : m)
    z += std::exp(v - mx);
  return {mx, z};
}

/// -log softmax(m)[y] = log sum_c e^{m_c} - m_y, with the max taken out.
double softmax_loss(int y, const std::vector<double>& m) {
  auto [mx, z] = max_and_normalizer(m);
  return mx + std::log(z) - m[static_cast<std::size_t>(y)];
}

std::vector<double> softmax(const std::vector<double>& m) {
  auto [mx, z] = max_and_normalizer(m);
  std::vector<double> p;
  for (double v : m)
    p.push_back(std::exp(v - mx) / z);
  return p;
}

/// Central first and second differences of f at m.
template <class F>
double d1(F f, double m, double h = 1e-5) {
  return (f(m + h) - f(m - h)) / (2 * h);
}
template <class F>
double d2(F f, double m, double h = 1e-3) {
  return (f(m + h) - 2 * f(m) + f(m - h)) / (h * h);
}

} // namespace

BOOST_AUTO_TEST_SUITE(objective)
BOOST_AUTO_TEST_SUITE(objective)

BOOST_AUTO_TEST_CASE(logistic_gradients_are_derivatives_of_logloss) {
  const std::size_t n = 60;
  veil::test::rng r(veil::test::objective_seed);
  std::vector<float> labels(n);
  std::vector<double> margins(n);
  for (std::size_t i = 0; i < n; ++i) {
    labels[i] = r.chance(0.5) ? 1.0f : 0.0f;
    margins[i] = r.uniform(-6, 6);
  }
  margins[0] = 0; // p = 1/2: g = 1/2 - y, h = 1/4 exactly
  vl::objective obj(vl::objective_kind::binary_logistic);
  std::vector<vl::grad_pair> out(n);
  obj.gradients(labels, margins, out);
  for (std::size_t i = 0; i < n; ++i) {
    double y = labels[i];
    auto loss = [&](double m) { return logistic_loss(y, m); };
    BOOST_TEST_CONTEXT("row " << i << ", y " << y << ", m " << margins[i]) {
      BOOST_CHECK_SMALL(out[i].g - d1(loss, margins[i]), 1e-6);
      BOOST_CHECK_SMALL(out[i].h - d2(loss, margins[i]), 1e-5);
    }
  }
  BOOST_CHECK_EQUAL(out[0].g, 0.5f - labels[0]);
  BOOST_CHECK_EQUAL(out[0].h, 0.25f);
}

BOOST_AUTO_TEST_CASE(logistic_hessian_has_a_floor) {
  // At m = 40, p = 1 in double, so p (1 - p) = 0; XGBoost floors the
  // hessian at 1e-16 so that no node has H = 0.
  vl::objective obj(vl::objective_kind::binary_logistic);
  std::vector<float> labels{0, 1};
  std::vector<double> margins{40, -40};
  std::vector<vl::grad_pair> out(2);
  obj.gradients(labels, margins, out);
  BOOST_CHECK_CLOSE(out[0].g, 1.0f, 1e-5);
  BOOST_CHECK_CLOSE(out[1].g, -1.0f, 1e-5);
  BOOST_CHECK_EQUAL(out[0].h, 1e-16f);
  BOOST_CHECK_GE(out[1].h, 1e-16f);
}

BOOST_AUTO_TEST_CASE(squared_error_gradients) {
  const std::size_t n = 40;
  veil::test::rng r(veil::test::objective_seed + 1);
  std::vector<float> labels(n);
  std::vector<double> margins(n);
  for (std::size_t i = 0; i < n; ++i) {
    labels[i] = static_cast<float>(r.uniform(-50, 50));
    margins[i] = r.uniform(-50, 50);
  }
  vl::objective obj(vl::objective_kind::reg_squarederror);
  std::vector<vl::grad_pair> out(n);
  obj.gradients(labels, margins, out);
  for (std::size_t i = 0; i < n; ++i) {
    double y = labels[i];
    auto loss = [&](double m) { return squared_loss(y, m); };
    BOOST_TEST_CONTEXT("row " << i) {
      BOOST_CHECK_SMALL(out[i].g - d1(loss, margins[i]),
                        1e-5 * std::max(1.0, std::abs(margins[i] - y)));
      BOOST_CHECK_SMALL(out[i].h - d2(loss, margins[i]), 1e-3);
      BOOST_CHECK_EQUAL(out[i].h, 1.0f);
    }
  }
  // By hand: m = 2.5, y = 1 -> g = 1.5.
  std::vector<float> y1{1};
  std::vector<double> m1{2.5};
  std::vector<vl::grad_pair> g1(1);
  obj.gradients(y1, m1, g1);
  BOOST_CHECK_EQUAL(g1[0].g, 1.5f);
}

BOOST_AUTO_TEST_CASE(softmax_gradients) {
  const std::size_t n = 25, k = 3;
  veil::test::rng r(veil::test::objective_seed + 2);
  std::vector<float> labels(n);
  std::vector<double> margins(n * k); // output-major: c * n + i
  for (std::size_t i = 0; i < n; ++i)
    labels[i] = static_cast<float>(r.below(k));
  for (auto& m : margins)
    m = r.uniform(-4, 4);
  vl::objective obj(vl::objective_kind::multi_softmax, static_cast<int>(k));
  BOOST_CHECK_EQUAL(obj.outputs(), 3);
  std::vector<vl::grad_pair> out(n * k);
  obj.gradients(labels, margins, out);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<double> row(k);
    for (std::size_t c = 0; c < k; ++c)
      row[c] = margins[c * n + i];
    int y = static_cast<int>(labels[i]);
    auto p = softmax(row);
    for (std::size_t c = 0; c < k; ++c) {
      auto loss = [&](double m) {
        auto moved = row;
        moved[c] = m;
        return softmax_loss(y, moved);
      };
      const auto& gp = out[c * n + i];
      BOOST_TEST_CONTEXT("row " << i << ", class " << c) {
        // The gradient is the derivative of the cross-entropy.
        BOOST_CHECK_SMALL(gp.g - d1(loss, row[c]), 1e-6);
        // The hessian is XGBoost's 2 p (1 - p), twice the true diagonal
        // second derivative p (1 - p) (checked here by finite differences)
        // -- a deliberate XGBoost convention that Veil keeps so that its
        // trees equal XGBoost's.
        BOOST_CHECK_CLOSE(gp.h, 2 * p[c] * (1 - p[c]), 1e-4);
        BOOST_CHECK_SMALL(gp.h / 2 - d2(loss, row[c]), 1e-5);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(two_threads_give_the_same_gradients) {
  // n * outputs >= 2^17 so that two threads run.
  const std::size_t n = 70000, k = 2;
  veil::test::rng r(veil::test::objective_seed + 3);
  std::vector<float> labels(n);
  std::vector<double> margins(n * k);
  for (auto& y : labels)
    y = static_cast<float>(r.below(k));
  for (auto& m : margins)
    m = r.uniform(-3, 3);
  vl::objective obj(vl::objective_kind::multi_softmax, static_cast<int>(k));
  std::vector<vl::grad_pair> one(n * k), two(n * k);
  obj.gradients(labels, margins, one, 1);
  obj.gradients(labels, margins, two, 2);
  std::size_t differ = 0;
  for (std::size_t i = 0; i < n * k; ++i)
    differ += one[i].g != two[i].g || one[i].h != two[i].h;
  BOOST_CHECK_EQUAL(differ, 0u);
  // Spot check against the formula: g = p - [y == c].
  for (std::size_t i = 0; i < n; i += 9973) {
    auto p = softmax({margins[i], margins[n + i]});
    for (std::size_t c = 0; c < k; ++c)
      BOOST_CHECK_SMALL(two[c * n + i].g - (p[c] - (labels[i] == c ? 1 : 0)),
                        1e-6);
  }
}

BOOST_AUTO_TEST_CASE(bad_labels_throw) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  vl::objective logistic(vl::objective_kind::binary_logistic);
  BOOST_CHECK_NO_THROW(logistic.check_labels(std::vector<float>{0, 1, 1, 0}));
  for (float bad : {0.5f, 2.0f, -1.0f, nan, inf})
    BOOST_CHECK_THROW(logistic.check_labels(std::vector<float>{0, 1, bad}),
                      veil::input_error);

  vl::objective soft(vl::objective_kind::multi_softmax, 3);
  BOOST_CHECK_NO_THROW(soft.check_labels(std::vector<float>{0, 1, 2, 2}));
  for (float bad : {3.0f, -1.0f, 1.5f, nan, inf})
    BOOST_CHECK_THROW(soft.check_labels(std::vector<float>{2, bad, 0}),
                      veil::input_error);

  vl::objective reg(vl::objective_kind::reg_squarederror);
  BOOST_CHECK_NO_THROW(
      reg.check_labels(std::vector<float>{-1e30f, 0.25f, 7, 1e30f}));
  for (float bad : {nan, inf, -inf})
    BOOST_CHECK_THROW(reg.check_labels(std::vector<float>{1, bad}),
                      veil::input_error);
  // No labels: nothing to object to.
  BOOST_CHECK_NO_THROW(logistic.check_labels(std::vector<float>{}));
}

BOOST_AUTO_TEST_CASE(names_and_construction) {
  using vl::objective_kind;
  BOOST_CHECK(vl::parse_objective("binary:logistic") ==
              objective_kind::binary_logistic);
  BOOST_CHECK(vl::parse_objective("reg:squarederror") ==
              objective_kind::reg_squarederror);
  BOOST_CHECK(vl::parse_objective("multi:softmax") ==
              objective_kind::multi_softmax);
  BOOST_CHECK(vl::parse_objective("multi:softprob") ==
              objective_kind::multi_softmax);
  BOOST_CHECK_THROW(vl::parse_objective("binary:hinge"), veil::input_error);
  BOOST_CHECK_THROW(vl::parse_objective(""), veil::input_error);
  BOOST_CHECK_EQUAL(vl::to_string(objective_kind::binary_logistic),
                    "binary:logistic");
  BOOST_CHECK_EQUAL(vl::to_string(objective_kind::reg_squarederror),
                    "reg:squarederror");
  BOOST_CHECK_EQUAL(vl::to_string(objective_kind::multi_softmax),
                    "multi:softmax");
  BOOST_CHECK_THROW(vl::objective(objective_kind::multi_softmax, 1),
                    veil::input_error);
  BOOST_CHECK_THROW(vl::objective(objective_kind::multi_softmax, 0),
                    veil::input_error);
  vl::objective b(objective_kind::binary_logistic, 5); // num_class ignored
  BOOST_CHECK_EQUAL(b.outputs(), 1);
  BOOST_CHECK_EQUAL(b.num_class(), 1);
  BOOST_CHECK(b.is_classification());
  vl::objective s(objective_kind::multi_softmax, 4);
  BOOST_CHECK_EQUAL(s.outputs(), 4);
  BOOST_CHECK(s.is_classification());
  BOOST_CHECK(
      !vl::objective(objective_kind::reg_squarederror).is_classification());
}

BOOST_AUTO_TEST_CASE(initial_margin_values) {
  using vl::objective_kind;
  // Logistic: logit of the positive rate 3/4 = log 3.
  vl::objective b(objective_kind::binary_logistic);
  auto m = b.initial_margin(std::vector<float>{1, 1, 0, 1});
  BOOST_REQUIRE_EQUAL(m.size(), 1u);
  BOOST_CHECK_CLOSE(m[0], std::log(3.0), 1e-10);
  // One class only: clamped to rate 1 - 1e-6, a finite margin.
  m = b.initial_margin(std::vector<float>{1, 1});
  BOOST_CHECK_CLOSE(m[0], std::log((1 - 1e-6) / 1e-6), 1e-8);
  m = b.initial_margin(std::vector<float>{0, 0, 0});
  BOOST_CHECK_CLOSE(m[0], -std::log((1 - 1e-6) / 1e-6), 1e-8);

  // Squared error: the mean, (1 + 2 + 6) / 3 = 3.
  vl::objective r(objective_kind::reg_squarederror);
  m = r.initial_margin(std::vector<float>{1, 2, 6});
  BOOST_REQUIRE_EQUAL(m.size(), 1u);
  BOOST_CHECK_CLOSE(m[0], 3.0, 1e-12);

  // Softmax: log class frequencies 2/6, 1/6, 3/6; an absent class gets
  // log 1e-6.
  vl::objective s(objective_kind::multi_softmax, 4);
  m = s.initial_margin(std::vector<float>{0, 2, 0, 1, 2, 2});
  BOOST_REQUIRE_EQUAL(m.size(), 4u);
  BOOST_CHECK_CLOSE(m[0], std::log(2.0 / 6), 1e-10);
  BOOST_CHECK_CLOSE(m[1], std::log(1.0 / 6), 1e-10);
  BOOST_CHECK_CLOSE(m[2], std::log(3.0 / 6), 1e-10);
  BOOST_CHECK_CLOSE(m[3], std::log(1e-6), 1e-10);
  // The initial margins of softmax reproduce the frequencies.
  auto p = softmax({m[0], m[1], m[2], m[3]});
  BOOST_CHECK_CLOSE(p[2], 0.5, 1e-3);
}

BOOST_AUTO_TEST_CASE(transform_values) {
  using vl::objective_kind;
  vl::objective b(objective_kind::binary_logistic);
  std::vector<double> margins{0, std::log(3.0), -2};
  auto t = b.transform(margins, 3);
  BOOST_REQUIRE_EQUAL(t.size(), 3u);
  BOOST_CHECK_CLOSE(t[0], 0.5, 1e-12);
  BOOST_CHECK_CLOSE(t[1], 0.75, 1e-12); // sigmoid(log 3) = 3 / 4
  BOOST_CHECK_CLOSE(t[2], sigmoid(-2), 1e-12);

  vl::objective r(objective_kind::reg_squarederror);
  t = r.transform(margins, 3);
  BOOST_CHECK_EQUAL(t[1], std::log(3.0));
  BOOST_CHECK_EQUAL(t[2], -2.0);

  // Softmax, 2 rows of 3 classes, output-major. Row 0: margins 0, log 2,
  // log 5 -> 1/8, 2/8, 5/8. Row 1: 1000, 0, -1000 -> 1, 0, 0 (no overflow).
  vl::objective s(objective_kind::multi_softmax, 3);
  std::vector<double> sm{0, 1000, std::log(2.0), 0, std::log(5.0), -1000};
  t = s.transform(sm, 2);
  BOOST_REQUIRE_EQUAL(t.size(), 6u);
  BOOST_CHECK_CLOSE(t[0], 1.0 / 8, 1e-10);
  BOOST_CHECK_CLOSE(t[2], 2.0 / 8, 1e-10);
  BOOST_CHECK_CLOSE(t[4], 5.0 / 8, 1e-10);
  BOOST_CHECK_CLOSE(t[1], 1.0, 1e-10);
  BOOST_CHECK_SMALL(t[3], 1e-300);
  BOOST_CHECK_SMALL(t[5], 1e-300);
  for (double v : t)
    BOOST_CHECK(std::isfinite(v));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
