#include "learners/tree/regression_tree.hpp"

#include <algorithm>

namespace veil::learners {

int regression_tree::depth() const {
  std::vector<int> d(nodes.size(), 0);
  int best = 0;
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i].parent >= 0)
      d[i] = d[nodes[i].parent] + 1;
    best = std::max(best, d[i]);
  }
  return best;
}

std::size_t regression_tree::leaves() const {
  return static_cast<std::size_t>(
      std::count_if(nodes.begin(), nodes.end(),
                    [](const tree_node& n) { return n.is_leaf(); }));
}

} // namespace veil::learners
