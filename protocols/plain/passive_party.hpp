#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <utility>

#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "learners/data/dataset.hpp"
#include "learners/tree/row_partition.hpp"
#include "protocols/masked/baselines.hpp"
#include "protocols/masked/exchange.hpp"
#include "protocols/masked/federboost.hpp"
#include "protocols/masked/he.hpp"
#include "protocols/outcome.hpp"
#include "protocols/plain/wire.hpp"

namespace veil::protocols::plain {

/// A split a party holds: its feature and threshold never leave it.
struct owned_split {
  std::int32_t feature = 0; ///< local column
  float threshold = 0;      ///< left iff x < threshold
  bool default_left = false;
};

/// (tree, node) -> the split this party owns there.
using split_table =
    std::map<std::pair<std::int32_t, std::int32_t>, owned_split>;

/// Routes rows of `d` through an owned split: 1 = left.
std::vector<std::uint8_t> route(const learners::dataset& d,
                                const owned_split& s,
                                std::span<const std::uint32_t> rows);

/// Party B of plaintext vertical federated XGBoost: holds feature columns
/// only. Bins them, builds per-bin gradient sums for the nodes the active
/// party asks for, splits its winning features' nodes and answers
/// prediction queries for them. Mirrors the row partition from the split
/// outcomes it is sent. A state machine: no I/O, no clock.
class passive_party {
public:
  /// `train` holds this party's columns, rows aligned with the active party.
  /// With exchange::masked it takes part through MaskedXGBoost's exchange
  /// under `masking`; `self` (its party id) keys its noise stream.
  explicit passive_party(learners::dataset train,
                         exchange ex = exchange::histograms,
                         masked::params masking = {}, party_id self = 1);

  /// A passive party that only answers prediction queries about `predict`:
  /// restored from its split table (features are its columns).
  passive_party(split_table splits, learners::dataset predict);

  /// Handles one message from the active party (party 0).
  /// Taken by value: the gradients of a tree_start are moved, not copied.
  outcome<outbox> on_message(party_id from, message m);

  /// The rows to answer prediction queries about (same columns).
  void set_predict_data(learners::dataset d) { predict_ = std::move(d); }

  const split_table& splits() const { return splits_; }
  const learners::dataset& train_data() const { return train_; }

private:
  outcome<outbox> on_setup(const setup& m);
  outcome<outbox> on_tree_start(tree_start&& m);
  outcome<outbox> on_level(const level_request& m);
  outcome<outbox> on_split_query(const split_query& m);
  outcome<outbox> on_masked_sums(const masked_sums& m);
  outcome<outbox> on_scored_query(const scored_split_query& m);
  outcome<outbox> noise_for(const level_request& m);
  outcome<outbox> on_noisy_gradients(noisy_gradients&& m);
  outcome<outbox> on_bucket_splits(const bucket_splits& m);
  outcome<outbox> on_encrypted_gradients(const encrypted_gradients& m);
  outcome<outbox> encrypted_for(const level_request& m);
  outcome<outbox> scores_for(const level_request& m);
  outcome<outbox> on_predict(const predict_query& m);

  learners::dataset train_;
  learners::dataset predict_;
  learners::quantile_cuts cuts_;
  learners::bin_matrix bins_;
  int threads_ = 1;
  bool ready_ = false;
  std::int32_t tree_ = -1;
  std::int32_t depth_ = -1;
  std::vector<learners::grad_pair> grads_;
  learners::row_partition partition_;
  split_table splits_;

  // MaskedXGBoost.
  plain::exchange exchange_ = exchange::histograms;
  masked::params masking_;
  party_id self_ = 1;
  learners::tree_params tree_params_;
  std::optional<masked::calibration> calibration_;
  std::optional<masked::noise_source> noise_;
  /// This level's nodes, their candidates and each one's best (or -1).
  std::vector<std::int32_t> level_nodes_;
  std::vector<std::vector<masked::candidate>> candidates_;
  std::vector<std::int64_t> best_;
  std::vector<double> noisy_g_, noisy_h_; // the LDP baselines' release
  // HE-XGBoost: the active party's key and this tree's ciphertexts.
  std::optional<paillier::public_key> he_key_;
  std::optional<paillier::packing> he_pack_; // the active party's, rebuilt
  std::vector<paillier::ciphertext> he_grads_;
};

} // namespace veil::protocols::plain
