#pragma once

#include <cstdint>
#include <span>

#include "learners/hist/gradients.hpp"

namespace veil::learners {

/// A node of the growing tree that waits for a split decision: its rows, its
/// gradient sum, and how its histogram can be had. Of two siblings, the one
/// with fewer rows has `build` set; the other one's histogram is the parent's
/// minus the sibling's (the subtraction trick).
struct node_request {
  std::int32_t node = 0;
  std::int32_t parent = -1;
  std::int32_t sibling = -1;
  int depth = 0;
  grad_sum sum;
  std::span<const std::uint32_t> rows;
  bool build = true;
};

} // namespace veil::learners
