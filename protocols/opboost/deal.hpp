#pragma once

// OpBoost on one table in one process (`veil train --protocol opboost
// --data FILE`): how the table's columns are dealt to Party A and the
// Party Bs, how each Party B column is pre-processed (public bounds or its
// data's range), and the rows of the paper's non-private prediction
// (spec opboost §5.6). CAF-free: the session runs the parties it returns.

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "learners/data/dataset.hpp"
#include "protocols/opboost/engine.hpp"
#include "protocols/opboost/params.hpp"
#include "protocols/opboost/preprocess.hpp"
#include "protocols/opboost/settings.hpp"

namespace veil::protocols::opboost {

/// One OpBoost party's data, given at spawn. Party A (the first): its
/// columns with the labels. A Party B: its raw columns (no labels) and
/// their public pre-processing constants. `eval`: its columns of the rows
/// to predict (none: no prediction).
struct party_data {
  std::string name;
  learners::dataset features;
  std::vector<feature_map> maps; ///< Party B only
  learners::dataset eval;
};

struct dealt_table {
  /// party0 (Party A: the `categorical` columns and the labels), then
  /// party1.. (the other columns in order, in contiguous near-equal
  /// blocks).
  std::vector<party_data> parties;
  /// Non-private prediction only: every model feature of the eval rows,
  /// Party B's mapped to the domain with its public constants, in the
  /// model's feature order (Party A's, then each Party B's).
  learners::dataset plain_eval;
  /// {"public": {column: [lo, hi]}, "public_columns": [...], "fitted":
  /// [...], "clamped": {column: {"train": n, "test": n}}}
  nlohmann::json bounds_report = {{"public", nlohmann::json::object()},
                                  {"public_columns", nlohmann::json::array()},
                                  {"fitted", nlohmann::json::array()},
                                  {"clamped", nlohmann::json::object()}};
  /// Party B columns mapped with their data's min and max.
  std::vector<std::string> fitted;
  /// "age (3 training, 1 test values outside [17, 90])": values clamped to
  /// their public bounds.
  std::vector<std::string> clamped;
};

/// Deals `train_set` (its labels to Party A) to `n` parties; `eval_set`
/// is the rows to predict (`have_test`: a test set, else the training
/// rows). Public `bounds` must name Party B columns. Throws input_error
/// naming `data_name`, the column or the bound's origin.
dealt_table deal_table(const learners::dataset& train_set,
                       const learners::dataset& eval_set, bool have_test,
                       std::size_t n,
                       const std::vector<std::string>& categorical,
                       const public_bounds& bounds, const params& p,
                       bool private_prediction, const std::string& data_name);

/// Why public `bounds` do not fit the parties' `columns` (Party A, named
/// `party_a`, first): a column no party holds, or one of Party A's (held
/// in plaintext, not pre-processed); empty if they fit.
std::string bounds_error(const std::map<std::string, feature_map>& bounds,
                         const std::vector<std::vector<std::string>>& columns,
                         const std::string& party_a);

/// A Party B's maps of its columns `cols`: the public bounds where the
/// roster gives them (`columns`, with `lower` and `upper`), else its data's
/// min and max. Throws input_error for bounds that are not a range.
std::vector<feature_map> maps_for(const learners::dataset& cols,
                                  const std::vector<std::string>& columns,
                                  const std::vector<double>& lower,
                                  const std::vector<double>& upper);

/// Party B `index`'s randomness: seeded_random(seed * 1000 + index) in
/// tests (`test_seed`), else the system's CSPRNG.
random_engine party_random(std::optional<std::uint64_t> test_seed,
                           std::int32_t index);

} // namespace veil::protocols::opboost
