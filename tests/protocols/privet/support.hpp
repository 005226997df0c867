#pragma once

// A table dealt to Privet's parties as the paper's experiments deal it
// (contiguous column blocks, the labels with party 0), for the
// tests of protocols/privet.

#include <vector>

#include "learners/data/dataset.hpp"
#include "protocols/privet/train.hpp"

namespace veil::test::privet {

struct dealt {
  protocols::privet::column_map map;
  std::vector<learners::dataset> parts; ///< by party
};

inline dealt deal(const learners::dataset& d, int parties) {
  dealt out;
  out.map = protocols::privet::column_map::blocks(d.features(), parties);
  for (int p = 0; p < parties; ++p)
    out.parts.push_back(out.map.part(d, p));
  return out;
}

} // namespace veil::test::privet
