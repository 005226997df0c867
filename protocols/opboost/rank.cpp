#include "protocols/opboost/rank.hpp"

#include <algorithm>

namespace veil::protocols::opboost {

dense_ranking dense_rank(std::span<const std::int64_t> values) {
  dense_ranking r;
  r.values.assign(values.begin(), values.end());
  std::sort(r.values.begin(), r.values.end());
  r.values.erase(std::unique(r.values.begin(), r.values.end()), r.values.end());
  r.ranks.resize(values.size());
  if (r.values.empty())
    return r;
  auto lo = r.values.front();
  auto span = static_cast<std::uint64_t>(r.values.back() - lo);
  if (span < 4 * values.size() + 1024) {
    // Small value range (D⊥ is small): a direct lookup table.
    std::vector<std::int32_t> table(span + 1, -1);
    for (std::size_t k = 0; k < r.values.size(); ++k)
      table[static_cast<std::size_t>(r.values[k] - lo)] =
          static_cast<std::int32_t>(k);
    for (std::size_t i = 0; i < values.size(); ++i)
      r.ranks[i] = table[static_cast<std::size_t>(values[i] - lo)];
  } else {
    for (std::size_t i = 0; i < values.size(); ++i)
      r.ranks[i] = static_cast<std::int32_t>(
          std::lower_bound(r.values.begin(), r.values.end(), values[i]) -
          r.values.begin());
  }
  return r;
}

} // namespace veil::protocols::opboost
