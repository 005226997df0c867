#pragma once

// What `veil train --protocol opboost` (one table, parties in this process)
// and `veil train --config` with protocol opboost (each party's own files,
// here or on its node) share: OpBoost's settings by name (the --set
// opboost.* keys, which are also a session file's [protocol] parameters),
// Party A's booster, and the printing and report of a session.

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/opboost_session.hpp"
#include "apps/veil/commands.hpp"
#include "learners/boost/booster.hpp"
#include "protocols/opboost/params.hpp"
#include "protocols/opboost/preprocess.hpp"

namespace veil::apps {

/// One column's public pre-processing bounds and where they were given
/// (for error messages).
struct public_bound {
  protocols::opboost::feature_map map;
  std::string origin;
};

/// By column.
using public_bounds = std::map<std::string, public_bound>;

/// OpBoost's settings, collected before they become params.
struct opboost_settings {
  protocols::opboost::params params; ///< the booster comes later
  public_bounds bounds_by_key;       ///< opboost.bounds.COLUMN=LO:HI
  public_bounds bounds_from_file;    ///< opboost.bounds=FILE
  bool private_prediction = true;    ///< opboost.prediction
  double epsilon = 0;                ///< epsilon; 0 = not given

  /// The file's bounds, with a column's opboost.bounds.COLUMN over its line.
  public_bounds bounds() const;
};

/// Applies one OpBoost setting `key` = `value` (an opboost.* key, or
/// epsilon); false if `key` is neither. `context` names it in errors:
/// "--set KEY" on the command line, "FILE:LINE: [protocol] KEY" in a
/// session file; a message that does not start with it gets it and the
/// value in front. Throws veil::input_error (also for an unknown opboost.*
/// key, listing the known ones).
bool apply_opboost_setting(opboost_settings& s, const std::string& key,
                           const std::string& value,
                           const std::string& context);

/// Party A's booster: the paper's defaults (GBDT's for learner gbdt), then
/// every setting of `given` that differs from the generic defaults (the
/// learner flags, the [learner] table). objective, num_class and threads
/// are always `given`'s.
learners::booster_params opboost_booster(const protocols::opboost::params& p,
                                         const learners::booster_params& given);

/// Throws input_error (prefixed by `context`) for a learner setting Party
/// A's training does not use: early stopping, per-round evaluation,
/// decision tables.
void refuse_unused_opboost_settings(const learners::booster_params& bp,
                                    const std::string& context);

/// Warns on stderr that the bounds of the Party B columns `fitted` were
/// taken from their data (none: nothing).
void warn_fitted_bounds(const std::vector<std::string>& fitted);

/// What the printing and the report of an OpBoost session say about it.
struct opboost_run_info {
  std::string data_name;
  /// "3 parties in this process", "3 parties, 2 on other nodes".
  std::string where;
  /// "test", "train", or empty: no metrics.
  std::string metrics_on;
  /// The labels and margins of the evaluation rows (metrics_on non-empty).
  const std::vector<float>* labels = nullptr;
  const std::vector<double>* margins = nullptr;
  bool private_prediction = true;
  /// {"public": {column: [lo, hi]}, "public_columns": [...], "fitted":
  /// [...], "clamped": {...}}
  nlohmann::json bounds;
  /// For the model file: Party A's label and id columns, and where the
  /// Party Bs kept their parts (none without --model-out).
  std::string label_column;
  std::string id_column;
  protocols::session::model_parts parts;
};

/// Prints an OpBoost session's outcome (model, metrics, privacy) and
/// writes --model-out and --report; returns the exit code (2 for bad
/// input, 1 for other failures).
int report_opboost(const actors::opboost_outcome& out,
                   const protocols::opboost::params& p, const train_options& o,
                   const opboost_run_info& info);

} // namespace veil::apps
