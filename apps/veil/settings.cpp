#include "apps/veil/settings.hpp"

#include <charconv>
#include <cmath>
#include <functional>

#include "learners/input_error.hpp"
#include "protocols/descriptor.hpp"

namespace veil::apps {

namespace {

double to_double(const std::string& key, const std::string& v) {
  double x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || p != v.data() + v.size())
    throw input_error("--set " + key + "=" + v + ": \"" + v +
                      "\" is not a number");
  return x;
}

int to_int(const std::string& key, const std::string& v) {
  int x = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec != std::errc{} || p != v.data() + v.size())
    throw input_error("--set " + key + "=" + v + ": \"" + v +
                      "\" is not an integer");
  return x;
}

bool to_bool(const std::string& key, const std::string& v) {
  if (v == "true" || v == "1")
    return true;
  if (v == "false" || v == "0")
    return false;
  throw input_error("--set " + key + "=" + v + ": expected true or false");
}

using setter = std::function<void(learners::booster_params&, const std::string&,
                                  const std::string&)>;

const std::map<std::string, setter>& setters() {
  using P = learners::booster_params;
  using S = const std::string&;
  static const std::map<std::string, setter> table = {
      {"max_depth", [](P& p, S k, S v) { p.tree.max_depth = to_int(k, v); }},
      {"depth", [](P& p, S k, S v) { p.tree.max_depth = to_int(k, v); }},
      {"eta", [](P& p, S k, S v) { p.tree.eta = to_double(k, v); }},
      {"learning_rate", [](P& p, S k, S v) { p.tree.eta = to_double(k, v); }},
      {"lambda", [](P& p, S k, S v) { p.tree.lambda = to_double(k, v); }},
      {"reg_lambda", [](P& p, S k, S v) { p.tree.lambda = to_double(k, v); }},
      {"gamma", [](P& p, S k, S v) { p.tree.gamma = to_double(k, v); }},
      {"min_split_loss",
       [](P& p, S k, S v) { p.tree.gamma = to_double(k, v); }},
      {"min_child_weight",
       [](P& p, S k, S v) { p.tree.min_child_weight = to_double(k, v); }},
      {"max_delta_step",
       [](P& p, S k, S v) { p.tree.max_delta_step = to_double(k, v); }},
      {"max_bin", [](P& p, S k, S v) { p.max_bin = to_int(k, v); }},
      {"base_score",
       [](P& p, S k, S v) {
         // NaN is the "fit it to the labels" default inside, never a value
         // to give: leave base_score out for that.
         p.base_score = to_double(k, v);
         if (!std::isfinite(p.base_score))
           throw input_error("--set " + k + "=" + v +
                             ": expected a finite number (leave base_score "
                             "out to fit it to the labels)");
       }},
      {"num_class", [](P& p, S k, S v) { p.num_class = to_int(k, v); }},
      {"threads", [](P& p, S k, S v) { p.threads = to_int(k, v); }},
      {"nthread", [](P& p, S k, S v) { p.threads = to_int(k, v); }},
      {"trees", [](P& p, S k, S v) { p.rounds = to_int(k, v); }},
      {"num_boost_round", [](P& p, S k, S v) { p.rounds = to_int(k, v); }},
      {"early_stopping_rounds",
       [](P& p, S k, S v) { p.early_stopping_rounds = to_int(k, v); }},
      {"eval_train", [](P& p, S k, S v) { p.eval_train = to_bool(k, v); }},
      {"eval_rounds", [](P& p, S k, S v) { p.eval_rounds = to_bool(k, v); }},
      {"objective",
       [](P& p, S, S v) { p.objective = learners::parse_objective(v); }},
      {"weak_learner",
       [](P& p, S k, S v) {
         if (v == "tree")
           p.tree.oblivious = false;
         else if (v == "decision_table")
           p.tree.oblivious = true;
         else
           throw input_error("--set " + k + "=" + v +
                             ": expected tree or decision_table");
       }},
  };
  return table;
}

} // namespace

void apply_setting(learners::booster_params& p, const std::string& assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw input_error("--set " + assignment + ": expected KEY=VALUE");
  auto key = assignment.substr(0, eq);
  auto value = assignment.substr(eq + 1);
  auto it = setters().find(key);
  if (it == setters().end()) {
    std::string known;
    for (auto& k : setting_keys())
      known += (known.empty() ? "" : ", ") + k;
    throw input_error("--set " + assignment + ": unknown setting \"" + key +
                      "\" (known: " + known + ")");
  }
  it->second(p, key, value);
}

std::vector<std::string> setting_keys() {
  std::vector<std::string> keys;
  for (auto& [k, v] : setters())
    keys.push_back(k);
  return keys;
}

std::vector<std::string> net_setting_keys() {
  std::vector<std::string> keys;
  for (const auto& s : protocols::session_settings())
    if (s.key.rfind("net.", 0) == 0)
      keys.push_back(s.key);
  return keys;
}

bool is_net_setting(const std::string& assignment) {
  return assignment.rfind("net.", 0) == 0;
}

void apply_net_setting(protocols::session::link_model& link,
                       const std::string& assignment,
                       const std::string& context) {
  auto eq = assignment.find('=');
  auto key = assignment.substr(0, eq);
  const protocols::setting* s = nullptr;
  for (const auto& x : protocols::session_settings())
    if (x.key == key && key.rfind("net.", 0) == 0)
      s = &x;
  if (!s) {
    std::string keys;
    for (const auto& k : net_setting_keys())
      keys += (keys.empty() ? "" : ", ") + k;
    throw input_error(context + ": unknown setting " + key +
                      " (the network settings are " + keys + ")");
  }
  if (eq == std::string::npos)
    throw input_error(context + ": expected " + key + "=VALUE");
  auto value = assignment.substr(eq + 1);
  protocols::check_setting(*s, value, context);
  double x = 0;
  std::from_chars(value.data(), value.data() + value.size(), x); // checked
  (key == "net.latency_ms"       ? link.latency_ms
   : key == "net.bandwidth_mbps" ? link.bandwidth_mbps
                                 : link.idle_seconds) = x;
}

std::chrono::milliseconds checked_timeout(double seconds,
                                          const std::string& context) {
  protocols::check_number(protocols::session_setting("timeout"), seconds,
                          context);
  return std::chrono::milliseconds(
      std::max<std::int64_t>(1, std::llround(seconds * 1000)));
}

void take_net_settings(std::vector<std::string>& settings,
                       protocols::session::link_model& link) {
  std::vector<std::string> rest;
  for (auto& s : settings)
    if (is_net_setting(s))
      apply_net_setting(link, s, "--set " + s);
    else
      rest.push_back(std::move(s));
  settings = std::move(rest);
}

} // namespace veil::apps
