#include "learners/boost/early_stopping.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "learners/metrics/metrics.hpp"

namespace veil::learners {

std::string early_stop_outcome::describe(const std::string& on) const {
  if (patience <= 0)
    return "";
  std::ostringstream s;
  if (stopped)
    s << "stopped early at round " << last_round;
  else
    s << "ran all " << last_round << " rounds";
  s << ", best round " << best_round << " by " << metric << " " << best_score
    << " on " << on << " (early_stopping_rounds " << patience << ")";
  return s.str();
}

early_stopping::early_stopping(const objective& obj, int patience) {
  auto [metric, larger] = default_metric(obj);
  outcome_.patience = patience;
  outcome_.metric = metric;
  larger_better_ = larger;
}

bool early_stopping::should_stop(int round,
                                 const std::map<std::string, double>& valid) {
  auto it = valid.find(outcome_.metric);
  if (it == valid.end())
    throw std::logic_error("early stopping: no " + outcome_.metric +
                           " in the round's metrics");
  double score = it->second;
  outcome_.last_round = round;
  // A NaN score (e.g. AUC of a one-class validation set) never improves.
  bool better = outcome_.best_round == 0 ||
                (larger_better_ ? score > outcome_.best_score
                                : score < outcome_.best_score);
  if (better) {
    outcome_.best_round = round;
    outcome_.best_score = score;
    since_best_ = 0;
    return false;
  }
  outcome_.stopped = enabled() && ++since_best_ >= outcome_.patience;
  return outcome_.stopped;
}

round_watcher::round_watcher(const objective& obj, std::vector<float> labels,
                             const std::vector<double>& base_margin,
                             int patience, int rounds, margin_sums sums)
    : obj_(obj), labels_(std::move(labels)), rounds_(rounds), sums_(sums),
      stopper_(obj, patience) {
  auto n = labels_.size();
  auto k = static_cast<std::size_t>(obj_.outputs());
  if (base_margin.size() != k)
    throw std::invalid_argument("round_watcher: a base margin per output");
  margins_.resize(n * k);
  for (std::size_t c = 0; c < k; ++c)
    std::fill(margins_.begin() + static_cast<std::ptrdiff_t>(c * n),
              margins_.begin() + static_cast<std::ptrdiff_t>((c + 1) * n),
              sums_ == margin_sums::as_prediction
                  ? static_cast<float>(base_margin[c])
                  : base_margin[c]);
}

bool round_watcher::add_round(std::span<const double> margins) {
  if (margins.size() != margins_.size())
    throw std::invalid_argument(std::to_string(margins.size()) +
                                " margins for " +
                                std::to_string(margins_.size()));
  for (std::size_t i = 0; i < margins_.size(); ++i)
    margins_[i] = sums_ == margin_sums::as_prediction
                      ? static_cast<float>(static_cast<float>(margins_[i]) +
                                           static_cast<float>(margins[i]))
                      : margins_[i] + margins[i];
  round_info info;
  info.round = static_cast<int>(history_.size()) + 1;
  info.rounds = rounds_;
  info.valid =
      evaluate(obj_, labels_, obj_.transform(margins_, labels_.size()));
  history_.push_back(info);
  return stopper_.should_stop(info.round, info.valid);
}

} // namespace veil::learners
