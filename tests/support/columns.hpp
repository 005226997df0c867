#pragma once

// One party's block of a table's columns, as the role tests deal them.

#include <numeric>
#include <vector>

#include "learners/data/dataset.hpp"

namespace veil::test {

/// Columns [lo, hi) of `d`; its labels only if `labels`.
inline learners::dataset columns(const learners::dataset& d, std::size_t lo,
                                 std::size_t hi, bool labels) {
  std::vector<std::size_t> cols(hi - lo);
  std::iota(cols.begin(), cols.end(), lo);
  auto part = d.select_columns(cols);
  if (!labels)
    part.labels().clear();
  return part;
}

} // namespace veil::test
