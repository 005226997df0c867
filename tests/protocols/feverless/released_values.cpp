// Every value a client releases carries the protocol's noise, whoever
// labels the rows behind it. A bucket whose rows its source labels itself
// has no missing ids; it is queried all the same, so the leaf weight built
// on it varies with the noise (before, its exact sum reached every client
// through the broadcast weight: 640 runs, one value). The same for the
// missing-value bucket, and for the LDP baseline.
#include "tests/protocols/feverless/harness.hpp"

#include <algorithm>
#include <cmath>
#include <set>

using namespace veil;
using namespace veil::test::fvl;

namespace {

constexpr std::size_t rows = 200;

/// 200 rows, 4 clients. Client 0 holds x: 0 on rows 0–99, and 1 (or
/// missing, when `missing`) on rows 100–199, the rows whose labels it holds
/// itself; clients 1–3 hold a constant column each (no split candidate) and
/// the labels of rows 0–99. y = 1 on 90 % of the rows with x = 1 (or
/// missing) and on 10 % of the others, so the root split on x wins by far
/// at any noise the test uses.
dataset two_buckets(bool missing) {
  dataset d(rows, {"x", "c1", "c2", "c3"});
  d.labels().resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    bool high = i >= rows / 2;
    d.value(i, 0) = high ? (missing ? learners::missing_value : 1.0f) : 0.0f;
    for (std::size_t c = 1; c < 4; ++c)
      d.value(i, c) = 1.0f;
    d.labels()[i] = (i % 10 == 0) != high ? 1.0f : 0.0f;
  }
  return d;
}

std::vector<int> owners() {
  std::vector<int> o(rows);
  for (std::size_t i = 0; i < rows; ++i)
    o[i] = i >= rows / 2 ? 0 : 1 + static_cast<int>(i % 3);
  return o;
}

/// One session's view of the leaf of the x = 1 (or missing) rows.
struct leaf_release {
  double weight = 0; ///< what every client received: w = -G/(H + lambda)
  double g_noise = 0, h_noise = 0; ///< the noise of its bucket's query
  double g_own = 0, h_own = 0;     ///< the bucket's exact sums
};

leaf_release one_session(bool missing, mode m, std::uint64_t seed) {
  auto p = session_params(m, 1, 1, seed);
  p.epsilon = 1;
  p.delta = 1e-5;
  p.test_hooks = true;
  auto f = train_session(two_buckets(missing), p, 4, owners(), seed);
  const auto& root = f.clients[0]->model().trees[0].nodes[0];
  BOOST_REQUIRE(!root.is_leaf());
  BOOST_REQUIRE_EQUAL(root.owner, 0);
  // The high rows' child: right of x < threshold, or the missing side.
  const auto& split = f.clients[0]->own_splits().at({0, 0});
  auto child =
      missing ? (split.default_left ? root.left : root.right) : root.right;
  leaf_release r;
  r.weight = f.clients[1]->model().trees[0].nodes[child].value / p.eta;
  // Its bucket's query: every high row, no missing id.
  protocols::crypto::fixed_point fp(p.frac_bits);
  auto plain = encoded_gradients(f, p.frac_bits);
  int found = 0;
  for (const auto& t : f.clients[0]->traces()) {
    if (t.rows.size() != rows / 2 || t.rows.front() != rows / 2)
      continue;
    ++found;
    BOOST_TEST(t.ids.empty());
    // No ids: the raw aggregate is the noise alone.
    r.g_noise = fp.decode(t.raw_g);
    r.h_noise = fp.decode(t.raw_h);
    std::uint64_t g = 0, h = 0;
    for (auto row : t.rows) {
      g += plain.g[row];
      h += plain.h[row];
    }
    r.g_own = fp.decode(g);
    r.h_own = fp.decode(h);
  }
  BOOST_REQUIRE_EQUAL(found, 1);
  return r;
}

/// Runs `runs` sessions and checks that the released weight is the noisy
/// sums' -G/(H + lambda) in each, takes `runs` distinct values, and spreads
/// as `draws` noise draws of sigma per sum predict.
void check_leaf(bool missing, mode m, int runs, int draws) {
  std::vector<double> w, ng;
  double g_own = 0, h_own = 0, sigma = 0;
  for (int s = 0; s < runs; ++s) {
    auto r = one_session(missing, m, 5000 + static_cast<std::uint64_t>(s));
    // The released weight is a function of the noisy sums (float storage).
    double expect = -(r.g_own + r.g_noise) / (r.h_own + r.h_noise + 1.0);
    BOOST_TEST(std::fabs(r.weight - expect) <= 1e-6 * (1 + std::fabs(expect)));
    w.push_back(r.weight);
    ng.push_back(r.g_noise);
    g_own = r.g_own;
    h_own = r.h_own;
  }
  {
    auto p = session_params(m, 1, 1, 1);
    p.epsilon = 1;
    sigma = calibrate(p, 4).sigma;
  }
  auto sd = [](const std::vector<double>& x) {
    double mean = 0, s2 = 0;
    for (double v : x)
      mean += v;
    mean /= static_cast<double>(x.size());
    for (double v : x)
      s2 += (v - mean) * (v - mean);
    return std::sqrt(s2 / static_cast<double>(x.size() - 1));
  };
  // Sample standard deviations have a relative standard error of
  // 1/sqrt(2 (R - 1)): allow four.
  double tol = 4 / std::sqrt(2.0 * (runs - 1));
  double sg = std::sqrt(double(draws)) * sigma; // Δ_g = 1
  double sh = std::sqrt(double(draws)) * 0.25 * sigma;
  BOOST_TEST(std::fabs(sd(ng) / sg - 1) <= tol);
  // The weight's spread to first order in the noise (the delta method; the
  // second-order terms are (sh / (H + lambda))^2 ~ 1e-3 of it here).
  double hl = h_own + 1.0;
  double predicted = std::sqrt(sg * sg / (hl * hl) +
                               g_own * g_own * sh * sh / (hl * hl * hl * hl));
  BOOST_TEST_MESSAGE((missing ? "missing bucket" : "own bucket")
                     << " (" << to_string(m) << "): weight sd " << sd(w)
                     << ", predicted " << predicted << ", exact weight "
                     << -g_own / hl);
  BOOST_TEST(std::fabs(sd(w) / predicted - 1) <= tol + 1e-2);
  std::set<double> distinct(w.begin(), w.end());
  BOOST_TEST(distinct.size() == w.size());
}

} // namespace

BOOST_AUTO_TEST_SUITE(feverless)
BOOST_AUTO_TEST_SUITE(released_values)

BOOST_AUTO_TEST_CASE(a_leaf_whose_rows_the_splitter_labels_carries_noise) {
  // One noise draw per sum (fixed1, the paper's k = 1).
  check_leaf(false, mode::feverless, 300, 1);
}

BOOST_AUTO_TEST_CASE(the_missing_value_bucket_carries_noise) {
  check_leaf(true, mode::feverless, 300, 1);
}

BOOST_AUTO_TEST_CASE(ldp_noises_it_too) {
  // Every non-source client noises its own (empty) partial sum: 3 draws.
  check_leaf(false, mode::ldp, 200, 3);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
