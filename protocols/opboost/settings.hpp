#pragma once

// OpBoost's settings by name, the single way from what a user gives (the
// --set opboost.* keys of its descriptor, a session file's [protocol]
// parameters, the learner's settings) to its params: `veil train`, `veil
// train --config` and the REPL all go through it. And the privacy section
// of its report.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "learners/boost/booster.hpp"
#include "protocols/dp/accountant.hpp"
#include "protocols/opboost/params.hpp"
#include "protocols/opboost/preprocess.hpp"

namespace veil::protocols::opboost {

/// One column's public pre-processing bounds and where they were given
/// (for error messages).
struct public_bound {
  feature_map map;
  std::string origin;
};

/// By column.
using public_bounds = std::map<std::string, public_bound>;

/// OpBoost's settings, collected before they become params.
struct named_settings {
  opboost::params params;         ///< the booster comes later
  public_bounds bounds_by_key;    ///< opboost.bounds.COLUMN=LO:HI
  public_bounds bounds_from_file; ///< opboost.bounds=FILE
  bool private_prediction = true; ///< opboost.prediction
  double epsilon = 0;             ///< epsilon; 0 = not given

  /// The file's bounds, with a column's opboost.bounds.COLUMN over its line.
  public_bounds bounds() const;
};

/// Applies one OpBoost setting `key` = `value` (an opboost.* key, or
/// epsilon), checked against the descriptor's table; false if `key` is
/// neither. `context` names it in errors: "--set KEY" on the command line,
/// "FILE:LINE: [protocol] KEY" in a session file; a message that does not
/// start with it gets it and the value in front. Throws veil::input_error
/// (also for an unknown opboost.* key, listing the known ones).
bool apply_setting(named_settings& s, const std::string& key,
                   const std::string& value, const std::string& context);

/// Party A's booster: the paper's defaults (GBDT's for learner gbdt), then
/// every setting of `given` that differs from the generic defaults (the
/// learner flags, the [learner] table). objective, num_class and threads
/// are always `given`'s.
learners::booster_params booster_for(const params& p,
                                     const learners::booster_params& given);

/// Throws input_error (prefixed by `context`) for a learner setting Party
/// A's training does not use: early stopping, per-round evaluation,
/// decision tables.
void refuse_unused_learner_settings(const learners::booster_params& bp,
                                    const std::string& context);

/// The warning that the bounds of the Party B columns `fitted` were taken
/// from their data; empty for none.
std::string fitted_bounds_warning(const std::vector<std::string>& fitted);

/// The columns of `bounds` ("fitted") whose bounds were fitted to the data:
/// the guarantee is conditional for them.
std::vector<std::string> fitted_columns(const nlohmann::json& bounds);

/// The report's privacy section: the mechanism and its settings, which
/// columns had public bounds (`bounds`: "public_columns", "fitted"), what
/// each Party B feature spent and the total per record (`spent`, Party
/// A's account), Party A's `report`, and (`predicted`) that private
/// prediction spent the budget again.
nlohmann::json privacy_json(const params& p, const dp::accountant& spent,
                            const std::string& report, bool predicted,
                            const nlohmann::json& bounds);

} // namespace veil::protocols::opboost
