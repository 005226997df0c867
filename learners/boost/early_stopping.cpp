#include "learners/boost/early_stopping.hpp"

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

} // namespace veil::learners
