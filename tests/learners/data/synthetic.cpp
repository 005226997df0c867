#include "learners/data/synthetic.hpp"

#include "tests/support/errors.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

using namespace veil::learners;
using veil::test::error_of;

namespace {

bool identical(const dataset& a, const dataset& b) {
  if (a.rows() != b.rows() || a.feature_names() != b.feature_names())
    return false;
  for (std::size_t j = 0; j < a.features(); ++j)
    for (std::size_t i = 0; i < a.rows(); ++i)
      if (std::bit_cast<std::uint32_t>(a.value(i, j)) !=
          std::bit_cast<std::uint32_t>(b.value(i, j)))
        return false;
  return a.labels() == b.labels();
}

/// Numerical rank of the first `rows` rows of `d`, by Gaussian elimination
/// with full pivoting; a pivot below tol * (largest entry) counts as zero.
std::size_t rank_of(const dataset& d, std::size_t rows, double tol = 1e-4) {
  const std::size_t p = d.features();
  std::vector<std::vector<double>> m(rows, std::vector<double>(p));
  double scale = 0;
  for (std::size_t i = 0; i < rows; ++i)
    for (std::size_t j = 0; j < p; ++j) {
      m[i][j] = d.value(i, j);
      scale = std::max(scale, std::abs(m[i][j]));
    }
  std::size_t rank = 0;
  std::vector<std::size_t> cols(p);
  for (std::size_t j = 0; j < p; ++j)
    cols[j] = j;
  for (; rank < std::min(rows, p); ++rank) {
    std::size_t pr = rank, pc = rank;
    double best = 0;
    for (std::size_t i = rank; i < rows; ++i)
      for (std::size_t j = rank; j < p; ++j)
        if (std::abs(m[i][cols[j]]) > best) {
          best = std::abs(m[i][cols[j]]);
          pr = i;
          pc = j;
        }
    if (best <= tol * scale)
      break;
    std::swap(m[rank], m[pr]);
    std::swap(cols[rank], cols[pc]);
    const std::size_t c = cols[rank];
    for (std::size_t i = rank + 1; i < rows; ++i) {
      double f = m[i][c] / m[rank][c];
      for (std::size_t j = rank; j < p; ++j)
        m[i][cols[j]] -= f * m[rank][cols[j]];
    }
  }
  return rank;
}

/// Solves the square system a x = b by Gaussian elimination with partial
/// pivoting.
std::vector<double> solve(std::vector<std::vector<double>> a,
                          std::vector<double> b) {
  const std::size_t n = b.size();
  for (std::size_t k = 0; k < n; ++k) {
    std::size_t piv = k;
    for (std::size_t i = k + 1; i < n; ++i)
      if (std::abs(a[i][k]) > std::abs(a[piv][k]))
        piv = i;
    std::swap(a[k], a[piv]);
    std::swap(b[k], b[piv]);
    for (std::size_t i = k + 1; i < n; ++i) {
      double f = a[i][k] / a[k][k];
      for (std::size_t j = k; j < n; ++j)
        a[i][j] -= f * a[k][j];
      b[i] -= f * b[k];
    }
  }
  std::vector<double> x(n);
  for (std::size_t k = n; k-- > 0;) {
    double s = b[k];
    for (std::size_t j = k + 1; j < n; ++j)
      s -= a[k][j] * x[j];
    x[k] = s / a[k][k];
  }
  return x;
}

/// Least squares fit of the labels on columns `cols` plus an intercept (last
/// coefficient), by the normal equations; also returns the largest residual.
std::pair<std::vector<double>, double>
fit(const dataset& d, const std::vector<std::size_t>& cols) {
  const std::size_t k = cols.size() + 1;
  auto x = [&](std::size_t i, std::size_t j) -> double {
    return j < cols.size() ? d.value(i, cols[j]) : 1.0;
  };
  std::vector<std::vector<double>> a(k, std::vector<double>(k));
  std::vector<double> b(k);
  for (std::size_t i = 0; i < d.rows(); ++i)
    for (std::size_t r = 0; r < k; ++r) {
      for (std::size_t c = 0; c < k; ++c)
        a[r][c] += x(i, r) * x(i, c);
      b[r] += x(i, r) * d.labels()[i];
    }
  auto w = solve(a, b);
  double worst = 0;
  for (std::size_t i = 0; i < d.rows(); ++i) {
    double pred = 0;
    for (std::size_t j = 0; j < k; ++j)
      pred += w[j] * x(i, j);
    worst = std::max(worst, std::abs(pred - d.labels()[i]));
  }
  return {w, worst};
}

} // namespace

BOOST_AUTO_TEST_SUITE(data)
BOOST_AUTO_TEST_SUITE(synthetic)

BOOST_AUTO_TEST_CASE(classification_is_deterministic) {
  classification_spec s;
  s.rows = 3000;
  auto a = make_classification(s);
  auto b = make_classification(s);
  BOOST_TEST(identical(a, b));
  s.seed = 43;
  auto c = make_classification(s);
  BOOST_TEST(!identical(a, c));
  // Rows differ in values, not just in order.
  BOOST_TEST(a.value(0, 0) != c.value(0, 0));
}

BOOST_AUTO_TEST_CASE(classification_shape_and_labels) {
  classification_spec s;
  s.rows = 1001;
  s.features = 25;
  s.classes = 3;
  s.clusters_per_class = 1;
  auto d = make_classification(s);
  BOOST_TEST(d.rows() == 1001u);
  BOOST_TEST(d.features() == 25u);
  BOOST_TEST(d.labels().size() == 1001u);
  BOOST_TEST(d.feature_names().front() == "f0");
  BOOST_TEST(d.feature_names().back() == "f24");
  std::vector<std::size_t> count(3);
  for (float y : d.labels()) {
    BOOST_REQUIRE((y == 0.0f || y == 1.0f || y == 2.0f));
    ++count[static_cast<std::size_t>(y)];
  }
  for (auto c : count)
    BOOST_TEST((c > 300u && c < 370u), c);
  for (std::size_t j = 0; j < d.features(); ++j)
    for (std::size_t i = 0; i < d.rows(); ++i)
      BOOST_REQUIRE(std::isfinite(d.value(i, j)));

  // More than 64 informative features: vertices span several words.
  classification_spec wide;
  wide.rows = 50;
  wide.features = wide.informative = 70;
  wide.redundant = 0;
  BOOST_TEST(make_classification(wide).features() == 70u);
}

BOOST_AUTO_TEST_CASE(classification_classes_are_balanced) {
  classification_spec s;
  s.rows = 100000;
  auto d = make_classification(s);
  double positive = 0;
  for (float y : d.labels())
    positive += y;
  const double n = static_cast<double>(s.rows);
  // Binomial(n, 1/2): 4 standard deviations.
  BOOST_TEST(std::abs(positive - n / 2) <= 4 * std::sqrt(n * 0.25), positive);
}

BOOST_AUTO_TEST_CASE(classification_without_shuffle_keeps_cluster_blocks) {
  classification_spec s;
  s.rows = 4000;
  s.flip_y = 0;
  s.shuffle = false;
  auto d = make_classification(s);
  // 4 clusters of 1000 rows, labelled 0, 1, 0, 1.
  for (std::size_t i = 0; i < s.rows; ++i)
    BOOST_REQUIRE(d.labels()[i] == static_cast<float>((i / 1000) % 2));
  // The informative columns come first; the cluster centres are +-class_sep.
  double mean = 0;
  for (std::size_t i = 0; i < 1000; ++i)
    mean += d.value(i, 0) / 1000;
  BOOST_TEST(std::abs(std::abs(mean) - 1.0) < 0.3, mean);
}

BOOST_AUTO_TEST_CASE(redundant_columns_are_linear_combinations) {
  classification_spec s;
  s.rows = 2000;
  auto d = make_classification(s);
  BOOST_TEST(rank_of(d, 200) == 10u);
  // With 5 noise features on top: 10 informative + 5 noise.
  s.features = 25;
  BOOST_TEST(rank_of(make_classification(s), 200) == 15u);
  // No redundancy: full rank.
  s.features = 20;
  s.redundant = 0;
  BOOST_TEST(rank_of(make_classification(s), 200) == 20u);
}

BOOST_AUTO_TEST_CASE(flip_y_does_not_change_features) {
  classification_spec s;
  s.rows = 500;
  auto a = make_classification(s);
  s.flip_y = 0.3;
  auto b = make_classification(s);
  BOOST_TEST(a.value(17, 3) == b.value(17, 3));
  BOOST_TEST(a.labels() != b.labels());
}

BOOST_AUTO_TEST_CASE(classification_rejects_bad_specs) {
  classification_spec s;
  s.redundant = 11;
  auto msg = error_of([&] { make_classification(s); });
  BOOST_TEST(msg.find("redundant") != std::string::npos, msg);
  BOOST_TEST(msg.find("features") != std::string::npos, msg);

  s = {};
  s.informative = 2;
  s.redundant = 0;
  s.classes = 3;
  msg = error_of([&] { make_classification(s); });
  BOOST_TEST(msg.find("clusters_per_class") != std::string::npos, msg);
  BOOST_TEST(msg.find("2^informative") != std::string::npos, msg);
  // Exactly 2^informative clusters is fine: every vertex is used once.
  s.classes = 2;
  BOOST_TEST(make_classification(s).rows() == s.rows);

  s = {};
  s.rows = 0;
  msg = error_of([&] { make_classification(s); });
  BOOST_TEST(msg.find("rows") != std::string::npos, msg);

  s = {};
  s.flip_y = 1.5;
  msg = error_of([&] { make_classification(s); });
  BOOST_TEST(msg.find("flip_y") != std::string::npos, msg);
}

BOOST_AUTO_TEST_CASE(regression_without_noise_is_linear) {
  regression_spec s;
  s.rows = 2000;
  s.noise = 0;
  s.bias = 3.5;
  auto d = make_regression(s);
  BOOST_TEST(d.rows() == 2000u);
  BOOST_TEST(d.features() == 20u);
  BOOST_TEST(d.feature_names()[19] == "f19");

  std::vector<std::size_t> informative(10);
  for (std::size_t j = 0; j < 10; ++j)
    informative[j] = j;
  auto [w, worst] = fit(d, informative);
  BOOST_TEST(worst < 1e-3, worst);
  for (std::size_t j = 0; j < 10; ++j)
    BOOST_TEST((w[j] >= 0 && w[j] <= 100), w[j]);
  BOOST_TEST(std::abs(w[10] - 3.5) < 1e-3, w[10]);

  // All columns: the other ten get no weight.
  std::vector<std::size_t> all(20);
  for (std::size_t j = 0; j < 20; ++j)
    all[j] = j;
  auto [w_all, worst_all] = fit(d, all);
  BOOST_TEST(worst_all < 1e-3, worst_all);
  for (std::size_t j = 10; j < 20; ++j)
    BOOST_TEST(std::abs(w_all[j]) < 1e-3, w_all[j]);
}

BOOST_AUTO_TEST_CASE(regression_noise_and_features) {
  regression_spec s;
  s.rows = 20000;
  s.noise = 2;
  auto noisy = make_regression(s);
  s.noise = 0;
  auto clean = make_regression(s);
  // Same seed, same features, whatever the noise.
  BOOST_TEST(noisy.value(123, 4) == clean.value(123, 4));
  double sum = 0, sq = 0;
  for (std::size_t i = 0; i < s.rows; ++i) {
    double e = noisy.labels()[i] - clean.labels()[i];
    sum += e;
    sq += e * e;
  }
  const double n = static_cast<double>(s.rows);
  BOOST_TEST(std::abs(sum / n) < 4 * 2 / std::sqrt(n));
  BOOST_TEST(std::abs(std::sqrt(sq / n) - 2) < 0.05);

  // The features are standard normal.
  for (std::size_t j : {0u, 13u}) {
    double m = 0, v = 0;
    for (float x : clean.column(j))
      m += x;
    m /= n;
    for (float x : clean.column(j))
      v += (x - m) * (x - m);
    v /= n;
    BOOST_TEST(std::abs(m) < 4 / std::sqrt(n), m);
    BOOST_TEST(std::abs(v - 1) < 0.05, v);
  }

  s.seed = 7;
  BOOST_TEST(make_regression(s).value(123, 4) != clean.value(123, 4));
}

BOOST_AUTO_TEST_CASE(regression_rejects_bad_specs) {
  regression_spec s;
  s.informative = 21;
  auto msg = error_of([&] { make_regression(s); });
  BOOST_TEST(msg.find("informative") != std::string::npos, msg);
  s = {};
  s.noise = -1;
  msg = error_of([&] { make_regression(s); });
  BOOST_TEST(msg.find("noise") != std::string::npos, msg);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
