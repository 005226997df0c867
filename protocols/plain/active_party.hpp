#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "learners/binning/bin_matrix.hpp"
#include "learners/binning/quantile_cuts.hpp"
#include "learners/boost/booster.hpp"
#include "learners/boost/early_stopping.hpp"
#include "learners/boost/model.hpp"
#include "learners/hist/histogram.hpp"
#include "learners/tree/tree_grower.hpp"
#include "protocols/masked/baselines.hpp"
#include "protocols/masked/exchange.hpp"
#include "protocols/masked/he.hpp"
#include "protocols/outcome.hpp"
#include "protocols/plain/passive_party.hpp"
#include "protocols/plain/wire.hpp"

namespace veil::protocols::plain {

/// Party A of plaintext vertical federated XGBoost: holds the labels (and
/// maybe features). Computes gradients, sends them to the passive parties,
/// gathers their histograms, picks every split, asks the winning feature's
/// owner to split the rows, and keeps the tree structure and leaf weights.
/// A state machine: no I/O, no clock.
///
/// Features are numbered globally party by party (the active party's first,
/// then each passive party's in the order given), and ties between equal
/// gains go to the lower global index: with the columns of one table dealt
/// out in order, the trees equal centralized training's.
class active_party {
public:
  /// `own` holds this party's columns and the labels; `passives` the ids
  /// of the passive parties (all != 0). With exchange::masked the passive
  /// parties' features take part through MaskedXGBoost's exchange
  /// (protocols/masked/exchange.hpp) under `masking`: binary:logistic
  /// only, no decision tables.
  active_party(const learners::booster_params& p, learners::dataset own,
               std::vector<party_id> passives,
               exchange ex = exchange::histograms, masked::params masking = {});

  /// An active party that only predicts, restored from a trained model of
  /// this protocol (its own splits hold their thresholds; the passive
  /// parties' splits are theirs): `own_features` of its columns come first
  /// in the model's features; `passives` the ids of the passive parties.
  /// Throws input_error if the model names another party or feature.
  static active_party restored(learners::model m, std::size_t own_features,
                               std::vector<party_id> passives);

  /// Evaluates every round on `own_valid` (the active party's columns of
  /// the validation rows, with their labels; each passive party holds its
  /// columns of them as its prediction data): after a round, its trees are
  /// predicted federatedly on those rows, the round's metrics go to
  /// history() and, with early_stopping_rounds, training stops when they
  /// stopped improving (the model keeps the best rounds). Before start().
  void evaluate_rounds_on(learners::dataset own_valid);

  /// Starts training: setup to every passive party.
  outbox start();

  /// Handles one message from a passive party.
  outcome<outbox> on_message(party_id from, const message& m);

  bool training_done() const { return phase_ == phase::trained; }

  /// Whether rounds are evaluated (evaluate_rounds_on).
  bool evaluating() const { return watch_.has_value(); }
  /// One entry per round evaluated (evaluate_rounds_on), with its
  /// validation metrics; and what early stopping did (off: patience 0).
  const std::vector<learners::round_info>& history() const;
  learners::early_stop_outcome early_stop() const;

  /// The federated model: structure and leaf values. A passive party's
  /// split has owner = its id, feature = its global index, and a NaN
  /// threshold: the threshold stays with the owner.
  const learners::model& model() const { return model_; }
  /// The splits on the active party's own features.
  const split_table& own_splits() const { return own_splits_; }
  /// Global index of each party's first feature, by party id.
  std::int32_t feature_offset(party_id p) const;
  std::int32_t total_features() const;

  /// Starts federated prediction of `own_eval` (the active party's
  /// columns of the rows to predict; the passive parties hold theirs).
  outbox start_predict(learners::dataset own_eval);

  bool predict_done() const { return phase_ == phase::predicted; }
  /// Margins of the predicted rows, output-major (as model::predict_margin).
  const std::vector<double>& predicted_margins() const { return predicted_; }

  std::size_t training_rows() const { return own_.rows(); }

  /// MaskedXGBoost: what the budgets fixed, once the passive parties are
  /// set up (none with the plain exchange or before); its LDP baselines'
  /// release.
  const std::optional<masked::calibration>& calibration() const {
    return calibration_;
  }
  const std::optional<masked::ldp_release>& ldp_release() const { return ldp_; }
  /// Either of them as the session reports it; none for the exchanges
  /// without noise.
  std::optional<masked::applied> applied() const;

private:
  explicit active_party(learners::objective objective)
      : objective_(std::move(objective)) {}

  enum class phase {
    idle,
    awaiting_setup,
    awaiting_histograms,
    awaiting_masked, // MaskedXGBoost: noise, then scores, from each party
    awaiting_answers,
    validating, // the last round's trees on the validation rows
    trained,
    predicting,
    predicted
  };

  outcome<outbox> on_setup_done(party_id from, const setup_done& m);
  outcome<outbox> on_histograms(party_id from, const histograms& m);
  outcome<outbox> on_noise(party_id from, const noise_matrices& m);
  outcome<outbox> on_scores(party_id from, const passive_scores& m);
  outcome<outbox> on_buckets(party_id from, const bucket_ids& m);
  outcome<outbox> on_encrypted_histograms(party_id from,
                                          const encrypted_histograms& m);
  std::vector<std::int32_t> level_nodes(bool all) const;
  message release_noisy();
  outcome<outbox> on_split_answer(party_id from, const split_answer& m);
  outcome<outbox> on_predict_answer(party_id from, const predict_answer& m);

  outbox begin_round();
  outbox begin_tree();
  outbox open_level(std::vector<split_outcome> splits);
  outbox evaluate();
  outbox finish_level();
  outbox finish_tree();
  outbox next_round();
  outbox start_round_evaluation();
  outbox finish_round_evaluation();
  outbox predict_step();
  const learners::dataset& predicting() const {
    return phase_ == phase::validating ? valid_ : eval_;
  }
  std::size_t party_index(party_id p) const;
  std::span<const learners::grad_pair> class_grads() const;

  learners::booster_params params_;
  learners::objective objective_;
  learners::dataset own_;
  std::size_t own_features_ = 0;
  std::vector<party_id> passives_;
  learners::quantile_cuts own_cuts_;
  learners::bin_matrix own_bins_;
  std::vector<learners::hist_layout> layouts_; // by passive index
  std::vector<std::int32_t> offsets_;          // by passive index
  learners::histogram_set own_hists_{0};
  std::vector<learners::histogram_set> passive_hists_;
  std::vector<bool> waiting_; // by passive index

  // MaskedXGBoost.
  plain::exchange exchange_ = exchange::histograms;
  masked::params masking_;
  std::optional<masked::calibration> calibration_;
  std::optional<masked::ldp_release> ldp_;         // the LDP baselines'
  std::vector<learners::grad_pair> scoring_grads_; // FedXGBoost-LDP: (g, 1)
  std::vector<bucket_ids> bucket_ids_;             // FederBoost, by passive
  std::vector<bucket_splits> pending_buckets_;     // FederBoost, by passive
  // HE-XGBoost: the key pair and the packing of (g, h).
  std::optional<paillier::private_key> he_key_;
  std::optional<paillier::packing> he_pack_;
  std::optional<masked::noise_source> noise_;
  std::uint64_t max_candidates_ = 0;
  std::vector<double> released_g_, released_h_;    // clipped, by row
  std::vector<std::vector<double>> passive_gains_; // by passive, frontier

  phase phase_ = phase::idle;
  learners::model model_;
  std::vector<double> margins_;
  std::vector<learners::grad_pair> grads_;
  int round_ = 0;
  int class_ = 0;
  std::int32_t tree_ = -1;
  std::int32_t depth_ = 0;
  std::optional<learners::tree_grower> grower_;
  std::vector<learners::split_decision> decisions_;
  std::vector<party_id> decision_owner_; // by frontier index; 0 = own
  split_table own_splits_;

  // Per-round evaluation.
  learners::dataset valid_;
  std::optional<learners::round_watcher> watch_;

  // Prediction (of eval_, or of valid_ while validating): the trees from
  // first_tree_ on.
  learners::dataset eval_;
  std::size_t first_tree_ = 0;
  // Tree-major: (t - first_tree_) * rows + i.
  std::vector<std::int32_t> positions_;
  std::vector<predict_query> queries_; // by passive index
  std::vector<double> predicted_;
  std::int32_t predict_depth_ = 0;
};

} // namespace veil::protocols::plain
