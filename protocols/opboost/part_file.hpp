#pragma once

// What a Party B keeps of a trained OpBoost model where it runs: the
// public pre-processing constants of each of its columns and the
// mechanism that desensitizes them, so that it can desensitize new rows
// afresh for private prediction in a later session. (Party A's part is the
// model itself, in the coordinator's model file.)

#include <string>
#include <vector>

#include "protocols/opboost/params.hpp"
#include "protocols/opboost/preprocess.hpp"

namespace veil::protocols::opboost {

struct party_part {
  std::string party;
  /// The trained model's id (session::model_parts::id).
  std::string model_id;
  /// The domain, the mechanism and the budget rule (the booster is not
  /// Party B's).
  params settings;
  std::vector<std::string> columns;
  std::vector<feature_map> maps; ///< by column
};

/// Writes it atomically as JSON; throws input_error naming the file.
void save_party_part(const party_part& part, const std::string& path);

/// Reads one back; throws input_error naming the file (and `party` when it
/// is another party's).
party_part load_party_part(const std::string& path, const std::string& party,
                           const std::string& model_id);

} // namespace veil::protocols::opboost
