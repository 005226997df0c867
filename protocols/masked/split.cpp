#include "protocols/masked/split.hpp"

#include <stdexcept>

#include <Eigen/Dense>

namespace veil::protocols::masked {

std::optional<double> split_score(double g_left, double h_left, double g,
                                  double h, double lambda) {
  double g_right = g - g_left, h_right = h - h_left;
  if (!(h_left + lambda > 0) || !(h_right + lambda > 0) || !(h + lambda > 0))
    return std::nullopt;
  return 0.5 * (g_left * g_left / (h_left + lambda) +
                g_right * g_right / (h_right + lambda) - g * g / (h + lambda));
}

std::optional<double> noisy_split_score(std::span<const std::uint8_t> m,
                                        std::span<const double> noised_g,
                                        std::span<const double> noised_h,
                                        double g, double h, double lambda) {
  if (noised_g.size() != m.size() || noised_h.size() != m.size())
    throw std::invalid_argument("noisy_split_score: vectors of another node");
  double gl = 0, hl = 0;
  for (std::size_t j = 0; j < m.size(); ++j)
    if (m[j]) {
      gl += noised_g[j];
      hl += noised_h[j];
    }
  return split_score(gl, hl, g, h, lambda);
}

std::vector<double> recover_gradients(std::span<const double> b1,
                                      std::span<const double> b2,
                                      std::span<const double> noised1,
                                      std::span<const double> noised2, int w) {
  auto n = static_cast<Eigen::Index>(noised1.size());
  auto ww = static_cast<Eigen::Index>(w);
  if (noised2.size() != noised1.size() ||
      b1.size() != noised1.size() * static_cast<std::size_t>(w) ||
      b2.size() != b1.size())
    throw std::invalid_argument("recover_gradients: shapes differ");
  Eigen::MatrixXd a(n, 2 * ww);
  Eigen::VectorXd d(n);
  for (Eigen::Index j = 0; j < n; ++j) {
    d(j) = noised1[static_cast<std::size_t>(j)] -
           noised2[static_cast<std::size_t>(j)];
    for (Eigen::Index k = 0; k < ww; ++k) {
      a(j, k) = b1[static_cast<std::size_t>(k * n + j)];
      a(j, ww + k) = -b2[static_cast<std::size_t>(k * n + j)];
    }
  }
  Eigen::VectorXd c = a.colPivHouseholderQr().solve(d);
  std::vector<double> g(noised1.begin(), noised1.end());
  for (Eigen::Index k = 0; k < ww; ++k)
    for (Eigen::Index j = 0; j < n; ++j)
      g[static_cast<std::size_t>(j)] -=
          c(k) * b1[static_cast<std::size_t>(k * n + j)];
  return g;
}

} // namespace veil::protocols::masked
