#pragma once

// Checks of every incoming OpBoost message against what the receiver knows
// (spec opboost §5.7, §9.6). Peer data is untrusted: a failed check is a
// protocol_error whose reason names the field, never a value.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "protocols/opboost/params.hpp"
#include "protocols/opboost/wire.hpp"
#include "protocols/outcome.hpp"

namespace veil::protocols::opboost {

/// M0 at Party A: consistent lengths, at least one column, known kinds,
/// non-empty names, finite bounds with lower < upper, the session's domain
/// and `rows` rows.
std::optional<protocol_error> validate(const schema& m, const domain& d,
                                       std::size_t rows);

/// M1 at Party A: `s.rows` rows per column of `s`, every column a dense
/// ranking (ranks 0 .. K-1, each present). On success, the number of
/// distinct ranks of each column is written to `distinct`.
std::optional<protocol_error> validate(const ranks& m, const schema& s,
                                       std::vector<std::int32_t>& distinct);

/// M2 at Party B: one range per feature (`distinct.size()` of them), ranks
/// strictly increasing inside each and below the feature's distinct count.
std::optional<protocol_error>
validate(const split_request& m, const std::vector<std::int32_t>& distinct);

/// M3 at Party A: one value per requested rank; finite integers within
/// [-2^22, 2^22] (so that thresholds are exact floats), strictly increasing
/// inside each feature's range (dense ranks are strictly monotone).
std::optional<protocol_error> validate(const split_values& m,
                                       const split_request& request);

/// M4 at Party A: the expected batch and row count, `features` columns of
/// finite integers within [-2^22, 2^22].
std::optional<protocol_error> validate(const predict_values& m,
                                       std::uint32_t batch, std::uint32_t rows,
                                       std::size_t features);

} // namespace veil::protocols::opboost
