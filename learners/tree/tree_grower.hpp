#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "learners/hist/gradients.hpp"
#include "learners/split/split.hpp"
#include "learners/tree/node_request.hpp"
#include "learners/tree/regression_tree.hpp"
#include "learners/tree/row_partition.hpp"
#include "learners/tree/tree_params.hpp"

namespace veil::learners {

/// The verdict on one frontier node. An invalid `split` (or one that gains
/// too little) makes the node a leaf. Otherwise `goes_left` says, for each
/// row of the node in the order of node_request::rows, whether it goes left:
/// whoever holds the feature computes it, so the grower never sees values.
struct split_decision {
  std::int32_t node = 0;
  split_candidate split;
  std::int32_t feature = -1; ///< index into the model's feature list
  float threshold = 0;
  std::int32_t owner = 0;
  std::vector<std::uint8_t> goes_left;
};

/// Grows one tree depth-wise, as a state machine: frontier() lists the nodes
/// of the current depth that wait for a decision (a batch with no
/// dependencies between its nodes); apply() takes one decision per frontier
/// node, partitions their rows and opens the next depth. *How* a split is
/// found (locally from histograms, or by a federated protocol) is up to the
/// caller; the grower only keeps the structure, rows and leaf weights.
class tree_grower {
public:
  /// `grads` must outlive the grower; `rows` are the training rows.
  tree_grower(const tree_params& p, std::span<const grad_pair> grads,
              std::vector<std::uint32_t> rows, int threads = 1);

  bool done() const { return frontier_.empty(); }
  std::span<const node_request> frontier() const { return frontier_; }

  /// Applies one decision per frontier node (any order). Throws
  /// std::invalid_argument when a decision is missing, duplicated, or its
  /// goes_left has the wrong length.
  void apply(std::span<const split_decision> decisions);

  /// Whether apply() would split the node of `d` (else it makes a leaf):
  /// a valid split that gains more than rounding noise and gamma. Callers
  /// ask a feature's owner for goes_left only for these.
  bool accepts(const split_decision& d) const;

  const regression_tree& tree() const { return tree_; }
  regression_tree take_tree() { return std::move(tree_); }

  /// Rows of node `id` (a leaf, once done()).
  std::span<const std::uint32_t> rows_of(std::int32_t id) const {
    return partition_.rows_of(id);
  }

private:
  std::int32_t add_node(std::int32_t parent, const grad_sum& sum);
  void make_leaf(std::int32_t id);

  tree_params params_;
  std::span<const grad_pair> grads_;
  int threads_;
  row_partition partition_;
  std::vector<grad_sum> sums_;
  std::vector<int> depth_;
  std::vector<node_request> frontier_;
  regression_tree tree_;
};

/// Sum of grads over rows.
grad_sum sum_gradients(std::span<const grad_pair> grads,
                       std::span<const std::uint32_t> rows);

} // namespace veil::learners
