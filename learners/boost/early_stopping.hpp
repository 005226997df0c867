#pragma once

#include <map>
#include <span>
#include <string>
#include <vector>

#include "learners/objective/objective.hpp"

namespace veil::learners {

/// What one round reports.
struct round_info {
  int round = 0; ///< 1-based
  int rounds = 0;
  std::map<std::string, double> train; ///< when eval_train
  std::map<std::string, double> valid; ///< when a validation set is given
};

/// What early stopping did: the metric it watched, where training stopped
/// and which round was best. Reports print it.
struct early_stop_outcome {
  int patience = 0;     ///< early_stopping_rounds; 0 = off
  bool stopped = false; ///< it ended training before the last round
  int last_round = 0;   ///< the last round trained (1-based)
  int best_round = 0;   ///< the best round (1-based); the model keeps it
  std::string metric;   ///< the validation metric it watched
  double best_score = 0;

  /// "stopped early at round 275, best round 265 by auc 0.931 on test
  /// (early_stopping_rounds 10)" (or "ran all 300 rounds, best round 290
  /// ..."), "" when off.
  std::string describe(const std::string& on) const;
};

/// Stops boosting when the validation metric has not improved for
/// `patience` rounds (XGBoost's early_stopping_rounds), watching the
/// objective's default_metric. The same rule for centralized training and
/// for every federated protocol's label holder.
class early_stopping {
public:
  early_stopping(const objective& obj, int patience);

  /// Takes round `round`'s (1-based, consecutive) validation metrics;
  /// true when training should stop after it. Throws std::logic_error if
  /// the metric is missing.
  bool should_stop(int round, const std::map<std::string, double>& valid);

  bool enabled() const { return outcome_.patience > 0; }
  const early_stop_outcome& outcome() const { return outcome_; }

private:
  bool larger_better_ = true;
  int since_best_ = 0;
  early_stop_outcome outcome_;
};

/// How a round_watcher sums the rounds' margins: as training sums the
/// validation margins (double), or as model::predict_margin sums a
/// prediction (float, tree after tree), so that the best round's metrics
/// are those of the final prediction bit for bit.
enum class margin_sums { as_training, as_prediction };

/// What whoever holds the labels of the evaluation rows does when training
/// is evaluated round by round (centralized training, the plain protocol's
/// active party, a FEVERLESS coordinator): adds each round's margins,
/// evaluates, keeps the history and applies early stopping.
class round_watcher {
public:
  /// `labels` of the rows; margins start at `base_margin` (one per output);
  /// `rounds` planned.
  round_watcher(const objective& obj, std::vector<float> labels,
                const std::vector<double>& base_margin, int patience,
                int rounds, margin_sums sums);

  /// The next round's margins (output-major, rows x outputs, the round's
  /// trees only); true when training should stop after it. Throws
  /// std::invalid_argument when they do not fit the rows.
  bool add_round(std::span<const double> margins);

  const std::vector<round_info>& history() const { return history_; }
  const early_stop_outcome& outcome() const { return stopper_.outcome(); }
  bool enabled() const { return stopper_.enabled(); }

private:
  objective obj_;
  std::vector<float> labels_;
  std::vector<double> margins_;
  int rounds_;
  margin_sums sums_;
  std::vector<round_info> history_;
  early_stopping stopper_;
};

} // namespace veil::learners
