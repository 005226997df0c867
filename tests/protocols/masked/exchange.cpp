// The exchange's noise laws as the roles produce them (make_noise and
// mask_gradients of protocols/masked/exchange.hpp; spec maskedxgboost §9
// items 13 and 14): what the passive party's sums keep of the noise, and
// the XGBoost-LDP law when σ1 = 0.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "learners/data/dataset.hpp"
#include "protocols/dp/gaussian.hpp"
#include "protocols/masked/exchange.hpp"

namespace mx = veil::protocols::masked;
namespace learners = veil::learners;

namespace {

/// One feature with values 0..9 over `n` rows: candidate "bin <= 3" sends
/// the rows with value <= 3 left.
struct one_node {
  learners::dataset data;
  learners::quantile_cuts cuts;
  learners::bin_matrix bins;
  std::vector<std::uint32_t> rows;
  std::vector<mx::candidate> candidates;
  explicit one_node(std::size_t n) : data(n, {"x"}) {
    for (std::size_t r = 0; r < n; ++r)
      data.value(r, 0) = static_cast<float>(r % 10);
    cuts = learners::quantile_cuts::compute(data, 32, 1);
    bins = learners::bin_matrix(data, cuts, 1);
    rows.resize(n);
    std::iota(rows.begin(), rows.end(), 0u);
    for (const auto& c : mx::node_candidates(bins, rows))
      if (c.bin == 3 && !c.default_left)
        candidates.push_back(c);
  }
};

struct masked_sample {
  std::vector<double> noise, masked; // one candidate
  double g_sum = 0, h_sum = 0;
};

masked_sample draw(const one_node& node, const mx::params& p,
                   const mx::calibration& c, mx::noise_source& pp,
                   mx::noise_source& ap, const std::vector<double>& g,
                   const std::vector<double>& h) {
  masked_sample s;
  auto n = node.rows.size();
  s.noise.resize(static_cast<std::size_t>(c.w) * n);
  mx::make_noise(node.bins, node.rows, node.candidates, c, pp, 1, s.noise);
  std::vector<std::uint32_t> left{node.candidates[0].left};
  auto [gs, hs] = mx::mask_gradients(g, h, node.rows, s.noise, left, 1, p, c,
                                     ap, 1, s.masked);
  s.g_sum = gs;
  s.h_sum = hs;
  return s;
}

} // namespace

BOOST_AUTO_TEST_SUITE(masked)
BOOST_AUTO_TEST_SUITE(exchange)

// Item 1, the paper's Example 1: Split([24, 25, 20, 22, 15, 17, 18, 16],
// 18) = [0, 0, 0, 0, 1, 1, 1, 1] is one of the node's candidates.
BOOST_AUTO_TEST_CASE(example_1_is_a_candidate) {
  learners::dataset d(8, {"x"});
  float xs[] = {24, 25, 20, 22, 15, 17, 18, 16};
  for (std::size_t r = 0; r < 8; ++r)
    d.value(r, 0) = xs[r];
  auto cuts = learners::quantile_cuts::compute(d, 32, 1);
  learners::bin_matrix bins(d, cuts, 1);
  std::vector<std::uint32_t> rows(8);
  std::iota(rows.begin(), rows.end(), 0u);
  std::vector<std::uint8_t> want{0, 0, 0, 0, 1, 1, 1, 1};
  int found = 0;
  for (const auto& c : mx::node_candidates(bins, rows)) {
    std::vector<std::uint8_t> m;
    for (auto r : rows)
      m.push_back(mx::goes_left(bins, r, c));
    found += m == want;
    BOOST_TEST(c.left ==
               static_cast<std::uint32_t>(std::count(m.begin(), m.end(), 1)));
  }
  BOOST_TEST(found == 1);
}

// Item 13: what survives in the passive party's sum mᵀ⟨g⟩ is the
// disturbing noise only: variance C n_A σ2² (not C n_A (2σ1² + σ2²)), over
// 4,000 draws within 5 sd of the variance estimate (sd var sqrt(2/N));
// with W = 1 the g and h noises have independent signs: correlation within
// 5/sqrt(N) of 0.
BOOST_AUTO_TEST_CASE(passive_sums_keep_only_the_disturbing_noise) {
  one_node node(200);
  BOOST_REQUIRE_EQUAL(node.candidates.size(), 1u);
  auto n_a = node.candidates[0].left;
  BOOST_TEST(n_a == 80u);
  mx::params p;
  p.energy = mx::energy_mode::adaptive;
  p.seed = 41;
  mx::calibration c;
  c.rho = 4; // much structured noise: it must cancel
  c.sigma1 = 2;
  c.sigma2 = 1;
  c.release = mx::per_release(2, 1e-3, 1);
  double energy = mx::candidate_energy(p, c, 200, n_a);
  std::vector<double> g(200), h(200);
  for (std::size_t r = 0; r < 200; ++r) {
    g[r] = (r % 3) * 0.1 - 0.1;
    h[r] = 0.2;
  }
  double mg = 0, mh = 0;
  for (std::size_t r = 0; r < 200; ++r)
    if (r % 10 <= 3) {
      mg += g[r];
      mh += h[r];
    }
  mx::noise_source pp(p.seed, 1), ap(p.seed, 0);
  const int trials = 4000;
  double sg = 0, sh = 0, sgh = 0;
  for (int t = 0; t < trials; ++t) {
    auto s = draw(node, p, c, pp, ap, g, h);
    double eg = -mg, eh = -mh;
    for (std::size_t r = 0; r < 200; ++r)
      if (r % 10 <= 3) {
        eg += s.masked[r];
        eh += s.masked[200 + r];
      }
    sg += eg * eg;
    sh += eh * eh;
    sgh += eg * eh;
  }
  double want = energy * n_a * c.sigma2 * c.sigma2;
  double tol = 5 * want * std::sqrt(2.0 / trials);
  BOOST_TEST(std::abs(sg / trials - want) < tol);
  BOOST_TEST(std::abs(sh / trials - want) < tol);
  BOOST_TEST(std::abs(sgh / trials) / want < 5 / std::sqrt(double(trials)));
}

// Item 14: with σ1 = 0 and W = 1, ⟨g⟩ − g is isotropic N(0, C σ2² I), the
// XGBoost-LDP law: every coordinate's variance within 5 sd, neighbouring
// left coordinates uncorrelated (the structured noise would make them
// −σ1²), and the pooled standardized values pass Kolmogorov–Smirnov at
// 0.001 (critical 1.95 / sqrt(N)).
BOOST_AUTO_TEST_CASE(without_structured_noise_the_mask_is_isotropic) {
  one_node node(40);
  mx::params p;
  p.seed = 43;
  mx::calibration c;
  c.rho = 0;
  c.sigma1 = 0;
  c.sigma2 = 1;
  c.release = mx::per_release(1, 1e-3, 1);
  double energy = mx::candidate_energy(p, c, 40, 40);
  std::vector<double> g(40, 0.25), h(40, 0.1);
  mx::noise_source pp(p.seed, 1), ap(p.seed, 0);
  const int trials = 5000;
  std::vector<double> var(40, 0), pooled;
  double neighbours = 0;
  for (int t = 0; t < trials; ++t) {
    auto s = draw(node, p, c, pp, ap, g, h);
    for (std::size_t r = 0; r < 40; ++r) {
      double e = s.masked[r] - g[r];
      var[r] += e * e;
      pooled.push_back(e / std::sqrt(energy));
    }
    neighbours += (s.masked[0] - g[0]) * (s.masked[1] - g[1]); // both left
  }
  double tol = 5 * energy * std::sqrt(2.0 / trials);
  for (double v : var)
    BOOST_TEST(std::abs(v / trials - energy) < tol);
  BOOST_TEST(std::abs(neighbours / trials) / energy <
             5 / std::sqrt(double(trials)));
  std::sort(pooled.begin(), pooled.end());
  double d = 0, n = static_cast<double>(pooled.size());
  for (std::size_t i = 0; i < pooled.size(); ++i) {
    double f = veil::protocols::dp::normal_cdf(pooled[i]);
    d = std::max({d, f - i / n, (i + 1) / n - f});
  }
  // The coordinates of one draw are independent: the pooled sample is
  // 200,000 independent standard normals.
  BOOST_TEST(d < 1.95 / std::sqrt(n));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
