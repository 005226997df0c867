#pragma once

// The messages of plaintext vertical federated XGBoost (SecureBoost's
// message pattern, no encryption): the baseline every paper measures
// against. Plain structs, no CAF: messages/plain.hpp binds them to the wire.

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "learners/boost/booster.hpp"
#include "learners/hist/gradients.hpp"
#include "learners/tree/tree_params.hpp"
#include "protocols/bits.hpp"
#include "protocols/masked/params.hpp"

namespace veil::protocols::plain {

/// A party's index in the session; the active party (labels) is 0.
using party_id = std::int32_t;

/// How the passive parties' features take part in split finding.
enum class exchange : std::int32_t {
  /// Histograms of the active party's gradients, in the clear (plain).
  histograms = 0,
  /// MaskedXGBoost (protocols/masked/exchange.hpp): noise matrices, masked
  /// gradient vectors, the passive party's best score.
  masked = 1,
  /// Its baselines (protocols/masked/baselines.hpp): noisy gradients and
  /// hessians once per tree (XGBoost-LDP), or noisy gradients only with a
  /// count-based score (FedXGBoost-LDP); the passive party's best score.
  xgboost_ldp = 2,
  fedxgboost_ldp = 3,
  /// FederBoost (protocols/masked/federboost.hpp): the passive parties'
  /// bucket ids, perturbed, once; the active party trains alone.
  federboost = 4,
  /// HE-XGBoost (SecureBoost's pattern, spec maskedxgboost §6.5): plain's
  /// histograms, of Paillier-encrypted gradients.
  he = 5,
};

/// Whether the passive parties score their own candidates (MaskedXGBoost
/// and its LDP baselines): their features stay hidden from the active
/// party, which gets their best score per node.
inline bool passives_score(exchange e) {
  return e == exchange::masked || e == exchange::xgboost_ldp ||
         e == exchange::fedxgboost_ldp;
}

/// What every party of a vertical XGBoost session gets in its roster: the
/// booster's settings, the exchange, and MaskedXGBoost's settings (used
/// when the exchange is masked).
struct roster_settings {
  learners::booster_params booster;
  plain::exchange exchange = exchange::histograms;
  masked::params masking;
};

/// What a passive party needs to bin and grow: its share of the booster
/// settings. Sent once by the active party.
struct setup {
  std::int32_t max_bin = 256;
  std::int32_t threads = 1;
  /// The tree settings a passive party scores its own candidates with
  /// (masked exchange).
  learners::tree_params tree_settings;
  /// HE-XGBoost: the active party's Paillier public key (n and its fixed
  /// base, paillier::public_key::to_bytes) and its bits; empty otherwise.
  std::int32_t paillier_bits = 0;
  std::vector<std::uint8_t> paillier_key;
};

/// Sent by a passive party after setup: how many bins each of its features
/// has, so that the active party can read its histograms. With the masked
/// exchange the features stay hidden: no bins, and the most candidates it
/// scores at one node (the strict accounting counts them).
struct setup_done {
  std::vector<std::int32_t> bins_per_feature;
  std::uint64_t max_candidates = 0;
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

/// XGBoost-LDP and FedXGBoost-LDP: the active party's clipped gradients
/// (and hessians; none for FedXGBoost-LDP) with Gaussian noise, by row,
/// once per tree.
struct noisy_gradients {
  std::int32_t tree = 0;
  std::vector<double> g;
  std::vector<double> h;
};

/// HE-XGBoost (active -> passive, after tree_start): every row's (g, h) in
/// fixed point, packed into one plaintext and encrypted, the ciphertexts
/// one after the other (public_key::write).
struct encrypted_gradients {
  std::int32_t tree = 0;
  std::vector<std::uint8_t> ciphertexts;
};

/// HE-XGBoost (passive -> active, the answer to level_request): for each
/// node asked for, its histogram slots (its features' bins and missing
/// slots, in layout order), each the sum of its rows' ciphertexts, packed
/// several slots to a ciphertext (masked::encrypted_histogram).
struct encrypted_histograms {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::int32_t> nodes;
  std::vector<std::uint8_t> ciphertexts;
};

/// FederBoost (passive -> active, the answer to setup): every feature's
/// perturbed bucket ids, the domain of each feature, then the ids feature
/// after feature.
struct bucket_ids {
  std::vector<std::int32_t> domains;
  std::vector<std::uint16_t> ids;
};

/// FederBoost (active -> passive, after each tree, no answer): the splits
/// of tree `tree` on the passive party's perturbed columns, "id <
/// thresholds[k]" on its feature features[k] at node nodes[k], which it
/// keeps as thresholds on the true values for prediction.
struct bucket_splits {
  std::int32_t tree = 0;
  std::vector<std::int32_t> nodes;
  std::vector<std::int32_t> features;
  std::vector<float> thresholds;
};

/// MaskedXGBoost, M1 (passive -> active): for each node of the level, its
/// candidates' noise matrices (Algorithm 1), W columns of the node's length
/// per candidate, node after node; `left_counts` only with
/// masked.energy=adaptive (they disclose how many rows go left).
struct noise_matrices {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::int32_t> nodes;
  std::vector<std::uint32_t> candidates; ///< per node
  std::vector<std::uint32_t> left_counts;
  std::vector<double> noise;
};

/// MaskedXGBoost, M2 (active -> passive): per node, G and H of the released
/// gradients, then per candidate ⟨g⟩_i and ⟨h⟩_i (Algorithm 2).
struct masked_sums {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::int32_t> nodes;
  std::vector<double> sums; ///< G, H per node
  std::vector<double> masked;
};

/// MaskedXGBoost, M3 (passive -> active): the passive party's best gain
/// per node (-inf: no candidate qualifies); which candidate stays with it.
struct passive_scores {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::int32_t> nodes;
  std::vector<double> gains;
};

/// MaskedXGBoost, M4: the passive party's best candidate won at `nodes`;
/// it answers with their partitions (split_answer).
struct scored_split_query {
  std::int32_t tree = 0;
  std::int32_t depth = 0;
  std::vector<std::int32_t> nodes;
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

using message =
    std::variant<setup, setup_done, tree_start, level_request, histograms,
                 noisy_gradients, bucket_ids, bucket_splits,
                 encrypted_gradients, encrypted_histograms, noise_matrices,
                 masked_sums, passive_scores, scored_split_query, split_query,
                 split_answer, predict_query, predict_answer, failure>;

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
