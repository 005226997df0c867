#include "learners/boost/importance.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace veil::learners {

namespace {

void add(feature_importance& f, const tree_node& n) {
  ++f.weight;
  f.total_gain += n.gain;
  f.total_cover += n.sum_hess;
}

std::vector<feature_importance>
by_total_gain(std::map<std::string, feature_importance> named) {
  std::vector<feature_importance> out;
  for (auto& [name, f] : named) {
    f.feature = name;
    out.push_back(std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return a.total_gain != b.total_gain ? a.total_gain > b.total_gain
                                        : a.feature < b.feature;
  });
  return out;
}

} // namespace

std::vector<feature_importance> importance(const model& m) {
  std::map<std::string, feature_importance> named;
  for (const auto& t : m.trees)
    for (const auto& n : t.nodes) {
      if (n.is_leaf() || n.feature < 0)
        continue;
      auto i = static_cast<std::size_t>(n.feature);
      add(named[i < m.feature_names.size() ? m.feature_names[i]
                                           : "f" + std::to_string(i)],
          n);
    }
  return by_total_gain(std::move(named));
}

std::vector<feature_importance>
importance_of_splits(const model& m, const std::vector<named_split>& splits) {
  std::map<std::string, feature_importance> named;
  for (const auto& s : splits) {
    const auto& nodes = m.trees.at(static_cast<std::size_t>(s.tree)).nodes;
    const auto& n = nodes.at(static_cast<std::size_t>(s.node));
    if (n.is_leaf())
      throw std::out_of_range("tree " + std::to_string(s.tree) + " node " +
                              std::to_string(s.node) + " is a leaf");
    add(named[s.feature], n);
  }
  return by_total_gain(std::move(named));
}

std::vector<feature_importance>
importance_by_owner(const model& m, const std::vector<std::string>& parties) {
  std::map<std::string, feature_importance> named;
  for (const auto& t : m.trees)
    for (const auto& n : t.nodes)
      if (!n.is_leaf()) {
        auto q = static_cast<std::size_t>(n.owner);
        add(named[q < parties.size() ? parties[q]
                                     : "party " + std::to_string(n.owner)],
            n);
      }
  return by_total_gain(std::move(named));
}

} // namespace veil::learners
