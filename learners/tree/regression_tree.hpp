#pragma once

#include <cstdint>
#include <vector>

#include "learners/data/dataset.hpp"

namespace veil::learners {

/// One node of a regression tree. An inner node sends a sample left iff its
/// value of `feature` is below `threshold`, or is missing and `default_left`.
struct tree_node {
  std::int32_t left = -1; ///< -1 for a leaf
  std::int32_t right = -1;
  std::int32_t parent = -1;
  std::int32_t feature = -1; ///< index into the model's feature list
  std::int32_t bin = -1;     ///< the split's bin in the owner's binning
  float threshold = 0;
  bool default_left = false;
  /// Leaf: the value added to the margin (eta times the weight).
  /// Inner node: the unscaled weight it would have as a leaf.
  float value = 0;
  float gain = 0;         ///< loss reduction of the split (0 for a leaf)
  double sum_hess = 0;    ///< hessian sum of the node's training rows
  std::int32_t owner = 0; ///< the party that holds this split's feature

  bool is_leaf() const { return left < 0; }
};

/// A binary regression tree; node 0 is the root.
class regression_tree {
public:
  std::vector<tree_node> nodes;
  /// The output (class) this tree adds to; 0 unless multi-class.
  int target = 0;

  /// The leaf a row of `d` falls in.
  std::int32_t leaf_of(const dataset& d, std::size_t row) const {
    std::int32_t i = 0;
    while (!nodes[i].is_leaf()) {
      const auto& n = nodes[i];
      float x = d.value(row, n.feature);
      bool left = is_missing(x) ? n.default_left : x < n.threshold;
      i = left ? n.left : n.right;
    }
    return i;
  }
  float predict(const dataset& d, std::size_t row) const {
    return nodes[leaf_of(d, row)].value;
  }
  int depth() const;
  std::size_t leaves() const;
};

} // namespace veil::learners
