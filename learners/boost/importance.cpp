#include "learners/boost/importance.hpp"

#include <algorithm>
#include <map>

namespace veil::learners {

std::vector<feature_importance>
importance(const model& m, const std::vector<std::int32_t>& owners) {
  std::map<std::int32_t, feature_importance> by_feature;
  for (const auto& t : m.trees)
    for (const auto& n : t.nodes) {
      if (n.is_leaf() || n.feature < 0)
        continue;
      if (!owners.empty() &&
          std::find(owners.begin(), owners.end(), n.owner) == owners.end())
        continue;
      auto& f = by_feature[n.feature];
      ++f.weight;
      f.total_gain += n.gain;
      f.total_cover += n.sum_hess;
    }
  std::vector<feature_importance> out;
  for (auto& [index, f] : by_feature) {
    auto i = static_cast<std::size_t>(index);
    f.feature = i < m.feature_names.size() ? m.feature_names[i]
                                           : "f" + std::to_string(index);
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.total_gain != b.total_gain ? a.total_gain > b.total_gain
                                        : a.feature < b.feature;
  });
  return out;
}

} // namespace veil::learners
