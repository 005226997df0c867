#pragma once

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "learners/boost/booster.hpp"
#include "protocols/session/wire.hpp"

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

/// The network keys of every federated session (their ranges and docs:
/// protocols::session_settings()): net.latency_ms, net.bandwidth_mbps and
/// net.idle_timeout.
std::vector<std::string> net_setting_keys();

/// Whether `assignment` (KEY=VALUE) sets a net_setting_keys() key.
bool is_net_setting(const std::string& assignment);

/// A session's silence timeout of `seconds`, checked against the "timeout"
/// session setting (its range: protocols::session_settings()); throws
/// input_error "CONTEXT: expected ..."; rounded to milliseconds, at least 1.
std::chrono::milliseconds checked_timeout(double seconds,
                                          const std::string& context);

/// Applies a net.* assignment to `link`, checked against its entry in
/// protocols::session_settings(); throws input_error naming the setting
/// for an unknown key or a value that is not a number in range. `context`
/// prefixes the message ("--set net.latency_ms=x").
void apply_net_setting(protocols::session::link_model& link,
                       const std::string& assignment,
                       const std::string& context);

/// Moves the net.* assignments out of `settings` into `link`.
void take_net_settings(std::vector<std::string>& settings,
                       protocols::session::link_model& link);

} // namespace veil::apps
