#pragma once

// The messages of OpBoost (spec opboost §5.7, M0-M4). Plain structs, no CAF:
// messages/opboost.hpp binds them to the wire. Bulk payloads are flat
// vectors (raw blocks on the wire).

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "protocols/bits.hpp"

namespace veil::protocols::opboost {

/// A party's index in the session; Party A (labels) is 0.
using party_id = std::int32_t;

/// The kind of a Party B column in the schema. Only numeric (or ordinal)
/// columns, desensitized by a dLDP mechanism, exist so far; one-hot nominal
/// columns randomized by unary encoding (the paper's industrial data set)
/// would get their own kind.
enum class column_kind : std::uint8_t { numeric = 0 };

/// M0, B -> A at setup: the columns B holds, in order, with their public
/// pre-processing constants (spec §3: new samples must use the same ones)
/// and the domain D⊥ they are mapped to.
struct schema {
  std::uint32_t rows = 0;
  std::vector<std::string> names;
  std::vector<std::uint8_t> kinds; ///< column_kind per column
  std::vector<double> lower;
  std::vector<double> upper;
  std::vector<double> fill;
  std::int64_t domain_lo = 0;
  std::int64_t domain_hi = 0;
};

/// M1, B -> A before training: the dense ranks of the desensitized values,
/// feature after feature (values[f * rows + i]); never the values.
struct ranks {
  std::uint32_t rows = 0;
  std::vector<std::int32_t> values;
};

/// M2, A -> B after training: per feature, the sorted distinct ranks whose
/// desensitized values A needs; feature f's are
/// ranks[offsets[f] .. offsets[f + 1]) (an empty range when unused).
struct split_request {
  std::vector<std::uint32_t> offsets;
  std::vector<std::int32_t> ranks;
};

/// M3, B -> A: the desensitized value of every requested rank, in the order
/// of the request.
struct split_values {
  std::vector<double> values;
};

/// A -> B, private prediction: desensitize the `rows` new samples you hold
/// for batch `batch` (spec §5.6, reading [D]).
struct predict_request {
  std::uint32_t batch = 0;
  std::uint32_t rows = 0;
};

/// M4, B -> A: the desensitized values (not ranks) of the new samples,
/// feature after feature, drawn with fresh randomness.
struct predict_values {
  std::uint32_t batch = 0;
  std::uint32_t rows = 0;
  std::vector<double> values;
};

using protocols::failure;

using message = std::variant<schema, ranks, split_request, split_values,
                             predict_request, predict_values, failure>;

/// A message and its destination.
using envelope = addressed<message>;

using outbox = std::vector<envelope>;

/// Name of a message type, for byte accounting and errors ("M1 ranks").
const char* message_name(const message& m);

} // namespace veil::protocols::opboost
