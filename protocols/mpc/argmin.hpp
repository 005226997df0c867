#pragma once

// SecArgmin (spec privet §4.8): the index of the smallest of each group of
// shared values, opened, with the minimum itself kept shared. A tournament
// over ⌈log2 length⌉ layers; every group's comparisons of a layer run in
// the same rounds. On equal values the left (lower index) wins, as the
// plaintext reference's argmin_first.

#include <cstdint>
#include <vector>

#include "protocols/mpc/party.hpp"

namespace veil::protocols::mpc {

struct argmin_result {
  std::vector<std::uint64_t> index; ///< per group, public (if opened)
  words shared_index;               ///< per group, shared (S1)
  words minimum;                    ///< per group, shared
};

/// `values` holds `groups` groups of `length` values one after the other.
/// `open_index` false: the indices stay shared (no last round).
task<argmin_result> argmin(party& self, words values, std::size_t groups,
                           std::size_t length, bool open_index = true);

} // namespace veil::protocols::mpc
