// `veil train --protocol masked-xgboost`: MaskedXGBoost (spec
// maskedxgboost) runs on the vertical XGBoost session of the plain
// protocol with the masked exchange; here only its settings are read.
#include "apps/veil/commands.hpp"
#include "apps/veil/session_config.hpp"
#include "apps/veil/settings.hpp"
#include "learners/input_error.hpp"
#include "protocols/masked/settings.hpp"

namespace veil::apps {

namespace mx = protocols::masked;

namespace {

/// The booster: the paper's defaults, then the learner settings given.
learners::booster_params masked_booster(const learners::booster_params& given,
                                        const std::vector<std::string>& extra,
                                        const std::string& context) {
  auto bp = mx::booster_for(given);
  for (const auto& s : extra)
    apply_setting(bp, s);
  mx::refuse_unused_learner_settings(bp, context);
  return bp;
}

/// The exchange of the method `name` names.
protocols::plain::exchange exchange_of(const std::string& name) {
  using protocols::plain::exchange;
  switch (mx::method_named(name)) {
  case mx::method::masked:
    return exchange::masked;
  case mx::method::xgboost_ldp:
    return exchange::xgboost_ldp;
  case mx::method::fedxgboost_ldp:
    return exchange::fedxgboost_ldp;
  case mx::method::federboost:
    return exchange::federboost;
  case mx::method::he:
    return exchange::he;
  }
  return exchange::masked;
}

} // namespace

std::string vertical_exchange::name() const {
  using protocols::plain::exchange;
  switch (kind) {
  case exchange::histograms:
    return "plain";
  case exchange::masked:
    return "masked-xgboost";
  case exchange::xgboost_ldp:
    return "xgboost-ldp";
  case exchange::fedxgboost_ldp:
    return "fedxgboost-ldp";
  case exchange::federboost:
    return "federboost";
  case exchange::he:
    return "he-xgboost";
  }
  return "plain";
}

int run_masked_train(const train_options& o) {
  vertical_exchange ex;
  ex.kind = exchange_of(o.protocol);
  std::vector<std::string> learner_settings;
  for (const auto& s : o.settings) {
    auto eq = s.find('=');
    auto key = s.substr(0, eq);
    auto value = eq == std::string::npos ? std::string() : s.substr(eq + 1);
    if (!mx::apply_setting(ex.masking, key, value, "--set " + s))
      learner_settings.push_back(s);
  }
  if (ex.kind == protocols::plain::exchange::he &&
      (o.epsilon > 0 || o.delta > 0))
    throw input_error("--epsilon/--delta: HE-XGBoost adds no noise (it "
                      "encrypts), so no budget would be spent");
  if (ex.kind == protocols::plain::exchange::federboost &&
      (o.epsilon > 0 || o.delta > 0))
    throw input_error("--epsilon/--delta: FederBoost's active party releases "
                      "nothing, so no budget of its would be spent; the "
                      "passive parties' is --set masked.epsilon_pp");
  if (o.epsilon > 0)
    ex.masking.epsilon_ap = checked_epsilon("--epsilon", o.epsilon);
  if (o.delta > 0)
    ex.masking.delta_ap = checked_delta("--delta", o.delta);
  ex.masking.validate();
  return run_vertical_train(
      o, masked_booster(o.params, learner_settings, "--set "), ex);
}

int run_masked_config(const session_config& c, const train_options& o) {
  vertical_exchange ex;
  ex.kind = exchange_of(c.protocol);
  for (const auto& [key, value] : c.protocol_params) {
    auto line = c.protocol_param_lines.find(key);
    auto context = c.source +
                   (line == c.protocol_param_lines.end()
                        ? std::string()
                        : ":" + std::to_string(line->second)) +
                   ": [protocol] " + key;
    if (!mx::apply_setting(ex.masking, key, value, context))
      throw input_error(context + ": not a masked-xgboost setting (see veil "
                                  "help masked-xgboost)");
  }
  ex.masking.validate();
  return run_vertical_config(
      c, o, masked_booster(c.params, {}, c.source + ": [learner] "), ex);
}

} // namespace veil::apps
