#include "protocols/masked/attacks.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace veil::protocols::masked {

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
