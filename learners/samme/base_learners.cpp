#include "learners/samme/base_learners.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

#include <Eigen/Dense>

namespace veil::learners {

int nearest_centroid::predict(std::span<const double> x) const {
  int best = -1;
  double best_d = std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < centroids.size(); ++k) {
    if (centroids[k].empty())
      continue;
    double d = 0;
    for (std::size_t j = 0; j < x.size(); ++j)
      d += (x[j] - centroids[k][j]) * (x[j] - centroids[k][j]);
    if (d < best_d) {
      best_d = d;
      best = static_cast<int>(k);
    }
  }
  return best;
}

nearest_centroid nearest_centroid::fit(const labelled_rows& d,
                                       std::span<const double> w, int classes) {
  auto k = static_cast<std::size_t>(classes);
  std::vector<std::vector<double>> sum(k, std::vector<double>(d.features, 0));
  std::vector<double> weight(k, 0);
  for (std::size_t i = 0; i < d.rows(); ++i) {
    auto c = static_cast<std::size_t>(d.y[i]);
    auto r = d.row(i);
    for (std::size_t j = 0; j < d.features; ++j)
      sum[c][j] += w[i] * r[j];
    weight[c] += w[i];
  }
  nearest_centroid out;
  out.centroids.resize(k);
  bool any = false;
  for (std::size_t c = 0; c < k; ++c) {
    if (!(weight[c] > 0))
      continue;
    any = true;
    out.centroids[c] = sum[c];
    for (auto& v : out.centroids[c])
      v /= weight[c];
  }
  if (!any)
    throw std::invalid_argument("nearest_centroid: no class has weight");
  return out;
}

std::vector<double> stump::differences(const labelled_rows& d,
                                       std::span<const double> w,
                                       std::span<const double> thresholds) {
  std::vector<double> delta(2 * d.features, 0);
  for (std::size_t i = 0; i < d.rows(); ++i) {
    double sign = d.y[i] == 0 ? 1.0 : -1.0;
    auto r = d.row(i);
    for (std::size_t j = 0; j < d.features; ++j)
      delta[2 * j + (r[j] >= thresholds[j] ? 1 : 0)] += sign * w[i];
  }
  return delta;
}

stump stump::from_differences(std::span<const double> delta,
                              std::span<const double> thresholds) {
  stump s;
  double best = -1;
  for (std::size_t j = 0; j < thresholds.size(); ++j) {
    double phi = std::abs(delta[2 * j]) + std::abs(delta[2 * j + 1]);
    if (phi > best) {
      best = phi;
      s.feature = j;
    }
  }
  s.threshold = thresholds[s.feature];
  for (int a = 0; a < 2; ++a)
    s.leaf[a] = delta[2 * s.feature + static_cast<std::size_t>(a)] >= 0 ? 0 : 1;
  return s;
}

std::vector<double> stump::best_thresholds(const labelled_rows& d,
                                           std::span<const double> w) {
  std::vector<double> out(d.features, 0);
  std::vector<std::size_t> order(d.rows());
  for (std::size_t j = 0; j < d.features; ++j) {
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) {
      return d.x[a * d.features + j] < d.x[b * d.features + j];
    });
    // Weights of each class below the cut, and in total.
    double total[2] = {0, 0}, below[2] = {0, 0};
    for (std::size_t i = 0; i < d.rows(); ++i)
      total[d.y[i] == 0 ? 0 : 1] += w[i];
    double best = std::numeric_limits<double>::infinity();
    out[j] = d.rows() ? d.x[order[0] * d.features + j] : 0;
    for (std::size_t s = 0; s + 1 < order.size(); ++s) {
      below[d.y[order[s]] == 0 ? 0 : 1] += w[order[s]];
      double here = d.x[order[s] * d.features + j],
             next = d.x[order[s + 1] * d.features + j];
      if (here == next)
        continue;
      // Each branch labelled with its heavier class: the lighter errs.
      double wrong = std::min(below[0], below[1]) +
                     std::min(total[0] - below[0], total[1] - below[1]);
      if (wrong < best) {
        best = wrong;
        out[j] = (here + next) / 2;
      }
    }
  }
  return out;
}

int logistic_regression::predict(std::span<const double> x) const {
  double s = 0;
  for (std::size_t j = 0; j < x.size(); ++j)
    s += theta[j] * x[j];
  return s >= 0 ? 1 : 0;
}

logistic_regression logistic_regression::fit(const labelled_rows& d,
                                             std::span<const double> w,
                                             double lambda) {
  if (!(lambda > 0))
    throw std::invalid_argument("logistic_regression: lambda must be > 0");
  auto p = static_cast<Eigen::Index>(d.features);
  Eigen::VectorXd theta = Eigen::VectorXd::Zero(p);
  for (int step = 0; step < 100; ++step) {
    Eigen::VectorXd grad = lambda * theta;
    Eigen::MatrixXd hess = lambda * Eigen::MatrixXd::Identity(p, p);
    for (std::size_t i = 0; i < d.rows(); ++i) {
      Eigen::Map<const Eigen::VectorXd> x(d.row(i).data(), p);
      double s = 1 / (1 + std::exp(-theta.dot(x)));
      grad += w[i] * (s - d.y[i]) * x;
      hess += w[i] * s * (1 - s) * x * x.transpose();
    }
    if (grad.lpNorm<Eigen::Infinity>() < 1e-10)
      break;
    theta -= hess.llt().solve(grad);
  }
  logistic_regression out;
  out.theta.assign(theta.data(), theta.data() + p);
  return out;
}

} // namespace veil::learners
