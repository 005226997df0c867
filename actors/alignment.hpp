#pragma once

// Lining up the parties' rows (the plain and FEVERLESS sessions): with an
// id column, every party's rows in the first party's order; without, by
// position. CAF-free.

#include <cstdint>
#include <string>
#include <vector>

#include "learners/data/dataset.hpp"
#include "protocols/session/wire.hpp"

namespace veil::actors {

/// Row orders per party (empty = keep the rows as they are).
using row_orders = std::vector<std::vector<std::uint32_t>>;

/// Checks that the parties' rows line up and computes each party's row
/// order: with `ids`, party 0's order (every id set must equal party 0's);
/// without, by position (the row counts must be equal). `what` names the
/// data ("training", "test"). Returns an error message naming the parties,
/// or an empty string.
std::string align_rows(const std::vector<std::string>& names,
                       const std::vector<protocols::session::data_summary>& s,
                       bool ids, const char* what, row_orders& orders);

/// Reorders `d` so that its row i is its row `rows[i]` (an align request).
/// Returns an error message for a row out of range (then `d` is unchanged),
/// or an empty string.
std::string apply_order(learners::dataset& d,
                        const std::vector<std::uint32_t>& rows);

} // namespace veil::actors
