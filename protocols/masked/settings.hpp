#pragma once

// MaskedXGBoost's settings by name (the --set masked.* keys of its
// descriptor, --epsilon/--delta, a session file's [protocol] parameters),
// its learner defaults, and the privacy section of its report: what
// `veil train` and `veil train --config` share.

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "learners/boost/booster.hpp"
#include "protocols/masked/baselines.hpp"
#include "protocols/masked/params.hpp"

namespace veil::protocols::masked {

/// Applies one setting `key` = `value` (a masked.* key, epsilon or delta),
/// checked against the descriptor's table; false if `key` is none of
/// them. `context` names it in errors ("--set masked.w=3"). Throws
/// veil::input_error.
bool apply_setting(params& p, const std::string& key, const std::string& value,
                   const std::string& context);

/// The spec's partition (§7.1) of `features` columns: the active party the
/// first half (at least one), the passive parties the rest.
inline std::size_t active_columns(std::size_t features) {
  return features / 2 > 0 ? features / 2 : 1;
}

/// The active party's booster: the paper's defaults (spec §3.6), then
/// every setting of `given` that differs from the generic defaults.
/// objective, num_class and threads are always `given`'s.
learners::booster_params booster_for(const learners::booster_params& given);

/// Throws input_error (prefixed by `context`) for what MaskedXGBoost cannot
/// train: an objective other than binary:logistic, decision tables.
void refuse_unused_learner_settings(const learners::booster_params& bp,
                                    const std::string& context);

/// What the session fixes before training and prints: the calibration at
/// `rows` training rows with `passives` passive parties, the largest of
/// which holds `passive_features` features (they bound the candidates a
/// node can have, exchange.hpp's max_candidates, as the active party
/// counts them).
/// Which of the methods of spec maskedxgboost the session runs.
enum class method { masked, xgboost_ldp, fedxgboost_ldp, federboost, he };

/// The method `--protocol NAME` names (masked-xgboost, xgboost-ldp,
/// fedxgboost-ldp); throws std::invalid_argument for another name.
method method_named(const std::string& name);
const char* to_string(method m);

struct guarantee {
  masked::method method = method::masked;
  params settings;
  calibration fixed;
  std::uint64_t max_candidates = 0; ///< a bound, from features and bins
  /// Every release an instance takes part in, each (ε0, δ0): composed.
  double end_to_end_epsilon = 0;
  double end_to_end_delta = 0;
  std::uint64_t end_to_end_releases = 0;
  /// The LDP baselines': one noisy release per tree and passive party.
  ldp_release ldp;
  /// FederBoost: the features of the widest passive party (each value
  /// under ε_PP, a record under their sum).
  std::uint64_t passive_features = 0;
};

guarantee fix_guarantee(method m, const params& p,
                        const learners::booster_params& bp, std::uint64_t rows,
                        int passives, std::uint64_t passive_features);

/// The report's privacy section and the lines printed after training.
nlohmann::json privacy_json(const guarantee& g);
std::string privacy_text(const guarantee& g);

} // namespace veil::protocols::masked
