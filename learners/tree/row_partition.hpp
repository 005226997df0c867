#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace veil::learners {

/// One node split: the rows of `node` go to `left` or `right`, one flag per
/// row in the node's current row order.
struct node_split {
  std::int32_t node = 0;
  std::int32_t left = 0;
  std::int32_t right = 0;
  std::span<const std::uint8_t> goes_left;
};

/// The rows of every node of a tree being grown, in one array: a node's
/// rows are a contiguous range, and a split partitions the range stably
/// (left rows first, each side in its previous order). The party that
/// grows a tree and every party that mirrors it hold one, so that all agree
/// on each node's rows from the split flags alone.
class row_partition {
public:
  row_partition() = default;

  /// Node 0, the root, holds `rows`.
  explicit row_partition(std::vector<std::uint32_t> rows);

  std::span<const std::uint32_t> rows_of(std::int32_t node) const {
    auto [b, e] = ranges_.at(static_cast<std::size_t>(node));
    return {rows_.data() + b, rows_.data() + e};
  }
  std::size_t size(std::int32_t node) const {
    auto [b, e] = ranges_.at(static_cast<std::size_t>(node));
    return e - b;
  }
  bool contains(std::int32_t node) const {
    return node >= 0 && static_cast<std::size_t>(node) < ranges_.size() &&
           known_[static_cast<std::size_t>(node)];
  }

  /// Applies independent splits (no node twice, each node known, each
  /// goes_left as long as the node's rows; children ids new). Throws
  /// std::invalid_argument, changing nothing, when one is malformed.
  void split(std::span<const node_split> splits, int threads = 1);

private:
  std::vector<std::uint32_t> rows_;
  std::vector<std::uint32_t> scratch_;
  std::vector<std::pair<std::size_t, std::size_t>> ranges_;
  std::vector<bool> known_;
};

} // namespace veil::learners
