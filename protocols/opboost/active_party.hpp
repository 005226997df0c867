#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "learners/boost/model.hpp"
#include "learners/boost/staged.hpp"
#include "learners/data/dataset.hpp"
#include "protocols/dp/accountant.hpp"
#include "protocols/opboost/params.hpp"
#include "protocols/opboost/preprocess.hpp"
#include "protocols/opboost/wire.hpp"
#include "protocols/outcome.hpp"

namespace veil::protocols::opboost {

/// One Party B split of the model, in rank space and after the query-back.
struct rank_split {
  std::size_t tree = 0;
  std::int32_t node = 0;
  party_id owner = 0;
  std::size_t feature = 0;  ///< the owner's local column
  std::int32_t k_left = 0;  ///< largest rank that goes left
  std::int32_t k_right = 0; ///< smallest rank that goes right
};

/// Party A of OpBoost (spec opboost §5.2 steps A1-A5, §5.6): holds the
/// labels and its own plaintext (e.g. categorical) columns. Collects each
/// Party B's schema (M0) and ranks (M1), trains XGBoost or GBDT locally on
/// its columns plus the rank columns with no further communication, asks
/// each Party B for the desensitized values at the split ranks (M2), and
/// replaces every rank threshold by a value threshold (M3). Then predicts
/// new samples either from plaintext features (non-private) or from values
/// the Party B users desensitize afresh (private, M4). A state machine: no
/// I/O, no clock.
///
/// Features are numbered Party A's first, then each Party B's in the order
/// the ids are given; with every tie broken by the lower index, training on
/// ranks equals training on the values they rank (spec §5.4).
class active_party {
public:
  /// `own`: labels and Party A's columns; `passives`: the Party B ids (> 0,
  /// distinct). Throws veil::input_error for a bad configuration.
  active_party(const params& p, learners::dataset own,
               std::vector<party_id> passives);

  /// A Party A that only predicts privately, restored after its session:
  /// `m` the trained model (value-space thresholds), `own` its columns (in
  /// the model's order, first), `passives` each Party B's id and columns.
  /// Throws veil::input_error if they do not make up the model's features.
  static std::unique_ptr<active_party>
  restored(const params& p, learners::model m, std::vector<std::string> own,
           const std::vector<std::pair<party_id, std::vector<std::string>>>&
               passives);

  /// Called after each round of the local training (A2), e.g. to report
  /// progress; it must not call back into this party.
  void on_round(std::function<void(const learners::round_info&)> f) {
    on_round_ = std::move(f);
  }

  /// Handles one message from a Party B.
  outcome<outbox> on_message(party_id from, const message& m);

  /// Whether every split threshold is in value space (A5 done).
  bool training_done() const { return phase_ >= phase::trained; }

  /// The model with Party B thresholds in desensitized-value (D⊥) units:
  /// "left iff x < threshold". Complete once training_done().
  const learners::model& model() const { return model_; }
  /// The same model with rank thresholds, as trained (A2).
  const learners::model& rank_model() const { return rank_model_; }
  /// The matrix A2 trained on: own columns, then each Party B's ranks.
  const learners::dataset& training_matrix() const { return matrix_; }
  /// The Party B splits and the ranks asked for them.
  const std::vector<rank_split>& splits() const { return splits_; }

  /// Global index of a party's first feature (Party A: 0).
  std::size_t feature_offset(party_id p) const;

  /// Non-private prediction (spec §5.6): `eval` holds every model feature by
  /// name, Party B's as raw values; Party A pre-processes them with the
  /// announced constants. Margins output-major. Throws veil::input_error
  /// for a missing column.
  std::vector<double> predict_margin_plain(const learners::dataset& eval) const;

  /// Private prediction: `own_eval` holds Party A's columns of the new
  /// samples; each Party B is asked for its desensitized values.
  outbox start_private_predict(learners::dataset own_eval);
  bool predict_done() const { return phase_ == phase::predicted; }
  /// Margins of the privately predicted rows, output-major.
  const std::vector<double>& predicted_margins() const { return predicted_; }
  /// Their margins after each round (the coordinator's history).
  learners::staged_margins staged_margins() const;
  /// The matrix the private prediction evaluated (own + desensitized).
  const learners::dataset& predict_matrix() const { return predict_matrix_; }

  /// What each record of each Party B spends, per feature and in total.
  dp::accountant spent() const;
  /// The privacy report (spec §2.5 note, real worst-case losses, caveats).
  std::string privacy_report() const;

private:
  active_party() = default;

  enum class phase {
    collecting,
    awaiting_values,
    trained,
    predicting,
    predicted
  };

  struct passive_state {
    party_id id = 0;
    bool has_schema = false;
    bool has_ranks = false;
    bool has_values = false;
    bool has_prediction = false;
    schema columns;
    std::vector<std::int32_t> distinct;
    std::vector<std::int32_t> ranks; // feature-major
    split_request request;
    predict_values prediction;
  };

  outcome<outbox> on_schema(passive_state& s, const schema& m);
  outcome<outbox> on_ranks(passive_state& s, const ranks& m);
  outcome<outbox> on_split_values(passive_state& s, const split_values& m);
  outcome<outbox> on_predict_values(passive_state& s, const predict_values& m);
  outbox train();
  void finish_training();
  void finish_prediction();
  passive_state* find(party_id p);

  params params_;
  learners::dataset own_;
  std::vector<passive_state> passives_;
  phase phase_ = phase::collecting;
  learners::dataset matrix_;
  learners::model rank_model_;
  learners::model model_;
  std::vector<rank_split> splits_;
  std::uint32_t batch_ = 0;
  learners::dataset predict_own_;
  learners::dataset predict_matrix_;
  std::vector<double> predicted_;
  std::function<void(const learners::round_info&)> on_round_;
  /// Restored for private prediction: no Party B schema (bounds) here.
  bool restored_ = false;
};

} // namespace veil::protocols::opboost
