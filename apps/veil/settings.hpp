#pragma once

#include <map>
#include <string>
#include <vector>

#include "learners/boost/booster.hpp"

namespace veil::apps {

/// Applies `key=value` settings to the booster parameters. Keys are
/// XGBoost's names (max_depth, eta, lambda, gamma, min_child_weight,
/// max_delta_step, max_bin, base_score, num_class, nthread, num_boost_round,
/// early_stopping_rounds)
/// plus Veil's (trees, depth, threads, weak_learner=tree|decision_table,
/// eval_train=true|false). Throws input_error naming an unknown key or a
/// value that does not parse.
void apply_setting(learners::booster_params& p, const std::string& assignment);

/// The keys apply_setting understands, for --help.
std::vector<std::string> setting_keys();

} // namespace veil::apps
