#include "learners/tree/row_partition.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "learners/parallel.hpp"

namespace veil::learners {

row_partition::row_partition(std::vector<std::uint32_t> rows)
    : rows_(std::move(rows)),
      scratch_(rows_.size()), ranges_{{0, rows_.size()}}, known_{true} {}

void row_partition::split(std::span<const node_split> splits, int threads) {
  auto fail = [](const std::string& what) {
    throw std::invalid_argument("row_partition: " + what);
  };
  std::vector<std::int32_t> seen;
  for (const auto& s : splits) {
    if (!contains(s.node))
      fail("unknown node " + std::to_string(s.node));
    if (std::find(seen.begin(), seen.end(), s.node) != seen.end())
      fail("node " + std::to_string(s.node) + " split twice");
    seen.push_back(s.node);
    if (s.goes_left.size() != size(s.node))
      fail("node " + std::to_string(s.node) + " has " +
           std::to_string(size(s.node)) + " rows, got " +
           std::to_string(s.goes_left.size()) + " flags");
    if (s.left < 0 || s.right < 0 || s.left == s.right || contains(s.left) ||
        contains(s.right))
      fail("node " + std::to_string(s.node) + ": bad child ids");
  }
  std::vector<std::size_t> left_count(splits.size());
  std::size_t total = 0;
  for (const auto& s : splits)
    total += s.goes_left.size();
#pragma omp parallel for num_threads(threads_for(total, threads))              \
    schedule(dynamic, 1)
  for (std::size_t k = 0; k < splits.size(); ++k) {
    const auto& s = splits[k];
    auto [b, e] = ranges_[static_cast<std::size_t>(s.node)];
    // Branch-free: each row goes to both cursors, and the flag says which
    // one keeps it. Left rows stay in order in place (the left cursor never
    // passes the read position), right rows in order in the scratch.
    auto* rows = rows_.data() + b;
    auto* right = scratch_.data() + b;
    const auto* flags = s.goes_left.data();
    std::size_t l = 0, r = 0;
    for (std::size_t i = 0; i < e - b; ++i) {
      auto row = rows[i];
      std::size_t go = flags[i] != 0;
      rows[l] = row;
      right[r] = row;
      l += go;
      r += 1 - go;
    }
    l += b;
    std::copy(scratch_.begin() + b, scratch_.begin() + b + r,
              rows_.begin() + l);
    left_count[k] = l - b;
  }
  for (std::size_t k = 0; k < splits.size(); ++k) {
    const auto& s = splits[k];
    auto [b, e] = ranges_[static_cast<std::size_t>(s.node)];
    auto need = static_cast<std::size_t>(std::max(s.left, s.right)) + 1;
    if (ranges_.size() < need) {
      ranges_.resize(need, {0, 0});
      known_.resize(need, false);
    }
    ranges_[s.left] = {b, b + left_count[k]};
    ranges_[s.right] = {b + left_count[k], e};
    known_[s.left] = known_[s.right] = true;
  }
}

} // namespace veil::learners
