#include "protocols/masked/noise.hpp"

#include <stdexcept>
#include <string>

namespace veil::protocols::masked {

std::vector<double> noise_column(std::span<const std::uint8_t> m,
                                 std::span<const double> p,
                                 std::span<const double> q,
                                 std::span<const double> r) {
  if (r.size() != m.size() || p.size() + q.size() != m.size())
    throw std::invalid_argument(
        "noise_column: " + std::to_string(p.size()) + " + " +
        std::to_string(q.size()) + " draws and " + std::to_string(r.size()) +
        " disturbing draws for " + std::to_string(m.size()) + " instances");
  std::vector<double> b(r.begin(), r.end());
  std::size_t a = 0, i = 0;
  for (std::size_t j = 0; j < m.size(); ++j) {
    if (m[j]) {
      if (a >= p.size())
        throw std::invalid_argument("noise_column: more left instances than "
                                    "draws p");
      // The cycle closes on the first: Σ_k (p_k − p_{k−1}) = 0.
      b[j] += p[a] - p[a == 0 ? p.size() - 1 : a - 1];
      ++a;
    } else {
      if (i >= q.size())
        throw std::invalid_argument("noise_column: more right instances "
                                    "than draws q");
      b[j] += q[i++];
    }
  }
  if (a != p.size())
    throw std::invalid_argument("noise_column: fewer left instances than "
                                "draws p");
  return b;
}

std::vector<double> add_noise(std::span<const double> g,
                              std::span<const double> b,
                              std::span<const double> c) {
  if (b.size() != g.size() * c.size())
    throw std::invalid_argument("add_noise: B is not n x W");
  std::vector<double> out(g.begin(), g.end());
  for (std::size_t k = 0; k < c.size(); ++k)
    for (std::size_t j = 0; j < g.size(); ++j)
      out[j] += c[k] * b[k * g.size() + j];
  return out;
}

} // namespace veil::protocols::masked
