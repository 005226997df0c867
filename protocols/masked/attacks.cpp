#include "protocols/masked/attacks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

#include "protocols/crypto/random.hpp"
#include "protocols/masked/noise.hpp"

namespace veil::protocols::masked {

namespace {

/// The attacker's inputs for rows [at, at + n) of `x`: ⟨g⟩, ⟨h⟩, B's row,
/// m.
void put_features(Eigen::MatrixXd& x, Eigen::Index at,
                  const candidate_view& v) {
  auto n = v.m.size();
  for (std::size_t j = 0; j < n; ++j) {
    auto r = at + static_cast<Eigen::Index>(j);
    x(r, 0) = v.masked_g[j];
    x(r, 1) = v.masked_h[j];
    for (int k = 0; k < v.w; ++k)
      x(r, 2 + k) = v.b[static_cast<std::size_t>(k) * n + j];
    x(r, 2 + v.w) = v.m[j];
  }
}

} // namespace

nn_attack_result nn_label_attack(const candidate_view& real,
                                 const nn_attack_settings& s) {
  auto n = real.m.size();
  auto w = static_cast<std::size_t>(real.w);
  if (n == 0 || real.w < 1 || real.b.size() != n * w ||
      real.masked_g.size() != n || real.masked_h.size() != n || s.copies < 1)
    throw std::invalid_argument("nn_label_attack: m, B (n x W), <g> and <h> "
                                "must describe the same n rows");
  auto inputs = static_cast<Eigen::Index>(3 + w);
  auto rows = static_cast<Eigen::Index>(n * static_cast<std::size_t>(s.copies));
  Eigen::MatrixXd x(rows, inputs), y(rows, 2);
  crypto::seeded_random rng(s.seed);
  std::uniform_real_distribution<double> pick(0, 1);
  const double e = std::exp(1.0), lo = 1 / (1 + e), hi = e / (1 + e);
  const double half = s.mu / 2;
  std::vector<double> g(n), h(n);
  for (int copy = 0; copy < s.copies; ++copy) {
    for (std::size_t j = 0; j < n; ++j) {
      double label = pick(rng) < s.positive_rate ? 1 : 0;
      double p = lo + (hi - lo) * pick(rng);
      g[j] = std::clamp(p - label, -half, half);
      h[j] = std::clamp(p * (1 - p), 0.0, half);
    }
    auto b = noise_matrix(real.m, s.sigma1, s.sigma2, real.w, rng);
    auto masked_g = add_noise(g, b, sphere_coefficients(real.w, s.energy, rng));
    auto masked_h = add_noise(h, b, sphere_coefficients(real.w, s.energy, rng));
    auto at = static_cast<Eigen::Index>(static_cast<std::size_t>(copy) * n);
    put_features(x, at, {real.m, b, real.w, masked_g, masked_h});
    for (std::size_t j = 0; j < n; ++j) {
      y(at + static_cast<Eigen::Index>(j), 0) = g[j];
      y(at + static_cast<Eigen::Index>(j), 1) = h[j];
    }
  }
  learners::mlp_regressor net;
  nn_attack_result out;
  out.history = net.fit(x, y, s.mlp);
  Eigen::MatrixXd test(static_cast<Eigen::Index>(n), inputs);
  put_features(test, 0, real);
  Eigen::MatrixXd guess = net.predict(test);
  out.g.resize(n);
  out.labels.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    out.g[j] = guess(static_cast<Eigen::Index>(j), 0);
    out.labels[j] = out.g[j] < 0;
  }
  return out;
}

std::vector<std::uint8_t> subset_attack(std::span<const double> b,
                                        std::size_t n, int w,
                                        std::size_t left) {
  if (n > 30 || left > n || b.size() != n * static_cast<std::size_t>(w))
    throw std::invalid_argument("subset_attack: n <= 30 rows, W columns");
  std::vector<std::uint8_t> best(n, 0);
  double best_cost = std::numeric_limits<double>::infinity();
  // Every subset of `left` rows, as bit masks (Gosper's hack).
  if (left == 0)
    return best;
  std::uint32_t s = (1u << left) - 1, end = 1u << n;
  while (s < end) {
    double cost = 0;
    for (int k = 0; k < w; ++k) {
      double sum = 0;
      for (std::size_t j = 0; j < n; ++j)
        if (s >> j & 1u)
          sum += b[static_cast<std::size_t>(k) * n + j];
      cost += std::abs(sum);
    }
    if (cost < best_cost) {
      best_cost = cost;
      for (std::size_t j = 0; j < n; ++j)
        best[j] = s >> j & 1u;
    }
    std::uint32_t c = s & -s, r = s + c;
    s = (((r ^ s) >> 2) / c) | r;
  }
  return best;
}

double bit_match(std::span<const std::uint8_t> guess,
                 std::span<const std::uint8_t> truth) {
  if (guess.size() != truth.size() || truth.empty())
    throw std::invalid_argument("bit_match: lengths differ");
  std::size_t same = 0;
  for (std::size_t i = 0; i < truth.size(); ++i)
    same += (guess[i] != 0) == (truth[i] != 0);
  return static_cast<double>(same) / static_cast<double>(truth.size());
}

label_score score_labels(std::span<const std::uint8_t> guess,
                         std::span<const std::uint8_t> truth) {
  if (guess.size() != truth.size() || truth.empty())
    throw std::invalid_argument("score_labels: lengths differ");
  double hit[2] = {0, 0}, count[2] = {0, 0};
  for (std::size_t i = 0; i < truth.size(); ++i) {
    int t = truth[i] != 0;
    count[t] += 1;
    hit[t] += (guess[i] != 0) == (t != 0);
  }
  auto n = static_cast<double>(truth.size());
  label_score s;
  s.accuracy = (hit[0] + hit[1]) / n;
  double recalls = 0, classes = 0;
  for (int t = 0; t < 2; ++t)
    if (count[t] > 0) {
      recalls += hit[t] / count[t];
      classes += 1;
    }
  s.balanced = recalls / classes;
  s.majority = std::max(count[0], count[1]) / n;
  return s;
}

} // namespace veil::protocols::masked
