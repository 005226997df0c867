#pragma once

#include <cstdint>
#include <vector>

#include "learners/data/dataset.hpp"
#include "protocols/dp/accountant.hpp"
#include "protocols/opboost/engine.hpp"
#include "protocols/opboost/mechanism.hpp"
#include "protocols/opboost/params.hpp"
#include "protocols/opboost/preprocess.hpp"
#include "protocols/opboost/wire.hpp"
#include "protocols/outcome.hpp"

namespace veil::protocols::opboost {

/// Party B of OpBoost (spec opboost §5.2 steps B1-B5, §5.6): holds feature
/// columns only. Pre-processes each value into D⊥, desensitizes it once,
/// sends the schema (M0) and the dense ranks of the desensitized values (M1)
/// in one batch, answers Party A's split-rank request with the desensitized
/// values (M3), and, for private prediction, desensitizes new samples afresh
/// (M4). A state machine: no I/O, no clock; randomness from the engine it
/// owns (crypto::system_random in production).
class passive_party {
public:
  /// `data`: this party's columns (raw values; no labels), rows aligned with
  /// Party A's. `maps`: the public pre-processing constants of each column.
  /// Throws veil::input_error for a bad configuration (before anything is
  /// sent).
  passive_party(party_id self, const params& p, learners::dataset data,
                std::vector<feature_map> maps, random_engine rng);

  /// B1-B4, then M0 and M1 to Party A. Call once.
  outbox start();

  /// Handles one message from Party A (party 0): M2 (once) or a prediction
  /// request.
  outcome<outbox> on_message(party_id from, const message& m);

  /// The new samples for private prediction: the same columns, raw.
  void set_predict_data(learners::dataset d);

  party_id id() const { return self_; }
  const params& settings() const { return params_; }
  const std::vector<std::string>& feature_names() const {
    return data_.feature_names();
  }
  /// The public pre-processing constants of each column.
  const std::vector<feature_map>& maps() const { return maps_; }
  std::size_t features() const { return data_.features(); }
  /// The mechanism of feature f (its budget share included).
  const desensitizer& mechanism(std::size_t f) const { return mechs_[f]; }
  /// Pre-processed and desensitized training values of feature f (private
  /// to B; exposed for tests and the host's own use).
  const std::vector<std::int64_t>& preprocessed(std::size_t f) const {
    return mapped_[f];
  }
  const std::vector<std::int64_t>& desensitized(std::size_t f) const {
    return noisy_[f];
  }
  /// Whether the split values (M3) were sent.
  bool answered() const { return answered_; }
  /// What one record spends per feature, and in total (training; each
  /// private prediction spends the same again on the new record).
  dp::accountant spent() const;

private:
  outcome<outbox> on_split_request(const split_request& m);
  outcome<outbox> on_predict_request(const predict_request& m);

  party_id self_;
  params params_;
  learners::dataset data_;
  std::vector<feature_map> maps_;
  random_engine rng_;
  std::vector<desensitizer> mechs_;
  std::vector<std::vector<std::int64_t>> mapped_;
  std::vector<std::vector<std::int64_t>> noisy_;
  std::vector<std::vector<std::int64_t>> rank_values_; // rank -> value
  std::vector<std::int32_t> distinct_;
  learners::dataset predict_;
  bool started_ = false;
  bool answered_ = false;
};

} // namespace veil::protocols::opboost
