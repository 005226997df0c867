#pragma once

// The messages of plaintext vertical federated XGBoost (SecureBoost's
// message pattern, no encryption): the baseline every paper measures
// against. Plain structs, no CAF: messages/plain.hpp binds them to the wire.

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "learners/hist/gradients.hpp"
#include "protocols/bits.hpp"

namespace veil::protocols::plain {

/// A party's index in the session; the active party (labels) is 0.
using party_id = std::int32_t;

/// What a passive party needs to bin and grow: its share of the booster
/// settings. Sent once by the active party.
struct setup {
  std::int32_t max_bin = 256;
  std::int32_t threads = 1;
};

/// Sent by a passive party after setup: how many bins each of its features
/// has, so that the active party can read its histograms.
struct setup_done {
  std::vector<std::int32_t> bins_per_feature;
};

/// Starts tree `tree`: the gradient pairs of every training row (in plain:
/// this protocol protects nothing).
struct tree_start {
  std::int32_t tree = 0;
  std::vector<learners::grad_pair> grads;
};

/// One split of the previous level: the rows of `node` go to `left`
/// or `right`, one bit per row of the node in row order (LSB first).
struct split_outcome {
  std::int32_t node = 0;
  std::int32_t left = 0;
  std::int32_t right = 0;
  std::vector<std::uint8_t> goes_left_bits;
};

/// Opens a level: apply `splits` (the previous level's), then send the
/// histograms of the nodes in `build`. `last` ends the tree instead (the
/// splits still apply, for prediction bookkeeping; no histograms wanted).
struct level_request {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<split_outcome> splits;
  std::vector<std::int32_t> build;
  bool last = false;
};

/// Per-bin gradient sums of all the sender's features for each node of
/// level_request::build, node after node (the layout of its bins).
struct histograms {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::int32_t> nodes;
  std::vector<learners::grad_sum> sums;
};

/// The owner of each winning feature is asked to split: node, its local
/// feature, left iff bin <= `bins[k]`, missing left iff default_left[k].
struct split_query {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::int32_t> nodes;
  std::vector<std::int32_t> features;
  std::vector<std::int32_t> bins;
  std::vector<std::uint8_t> default_left;
};

/// The owner's answer: for each queried node, one bit per row (LSB first),
/// concatenated; each node's bits start on a byte boundary.
struct split_answer {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::int32_t> nodes;
  std::vector<std::uint8_t> goes_left_bits;
};

/// Federated prediction, one tree level at a time: for each (tree, node)
/// the rows to route; rows of node k are rows[offsets[k] .. offsets[k+1]).
struct predict_query {
  std::int32_t depth = 0;
  std::vector<std::int32_t> trees;
  std::vector<std::int32_t> nodes;
  std::vector<std::uint32_t> offsets;
  std::vector<std::uint32_t> rows;
};

/// The owner's decisions: one bit per queried row (LSB first), each
/// (tree, node) group starting on a byte boundary.
struct predict_answer {
  std::int32_t depth = 0;
  std::vector<std::uint8_t> goes_left_bits;
};

using protocols::failure;

using message = std::variant<setup, setup_done, tree_start, level_request,
                             histograms, split_query, split_answer,
                             predict_query, predict_answer, failure>;

/// A message and its destination.
using envelope = addressed<message>;

using outbox = std::vector<envelope>;

/// Name of a message type, for byte accounting and errors.
const char* message_name(const message& m);

// The bit packing shared by every protocol (protocols/bits.hpp).
using protocols::append_bits;
using protocols::pack_bits;
using protocols::packed_size;
using protocols::unpack_bits;

} // namespace veil::protocols::plain
