#pragma once

// The files a federated model lives in after its session. The coordinator
// keeps the model file: the public model (its structure and leaf values;
// a split a party owns holds no threshold there) and what a prediction
// session needs to reach the parts: the protocol, the parties and their
// columns. Each party keeps its own part where it runs, in the file the
// session names after the model file and the party (part_path); for the
// parties of plain and FEVERLESS that part is a split table.

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "learners/boost/model.hpp"
#include "learners/input_error.hpp"
#include "protocols/session/wire.hpp"

namespace veil::protocols::session {

/// The coordinator's file of a federated model.
struct federated_model {
  /// The public model; `model.federated` says what the file holds.
  learners::model model;
  /// The protocol that trained it ("plain", "feverless", "opboost").
  std::string protocol;
  /// The parties in session order, each with its feature columns.
  std::vector<std::string> parties;
  std::vector<std::vector<std::string>> features;
  /// The label column of the party that holds it, and the id column (the
  /// session's, empty when rows were aligned by position).
  std::string label_column;
  std::string id_column;
  /// Every party's part carries it (model_parts::id).
  std::string model_id;
};

/// A fresh random model id (128 bits, hex).
std::string new_model_id();

/// Writes it atomically; throws input_error naming the file.
void save_federated_model(const federated_model& m, const std::string& path);
/// Its file's text (for a caller that writes it with other outputs).
std::string federated_model_text(const federated_model& m);

/// Reads it; throws input_error naming the file and the field. A model
/// file that is not a federated session's is refused with a message saying
/// to predict it without --config.
federated_model load_federated_model(const std::string& path);
/// The same from the file's JSON, read already (`path` names it in errors).
federated_model federated_model_from_json(const nlohmann::json& j,
                                          const std::string& path);
/// Whether `j` is a federated session's model file.
bool is_federated_model(const nlohmann::json& j);

/// Where party `party` keeps its part of the model saved as `model_path`.
std::string part_path(const std::string& model_path, const std::string& party);

/// Writes a model part (JSON whose "format" is `format`) to `path`
/// atomically, where a party runs. The path comes from the session's
/// coordinator, so an existing file is replaced only if it is a part of the
/// same format (a model saved again): anything else is refused, naming it.
/// Throws input_error.
void write_part_file(const std::string& path, const std::string& format,
                     const std::string& text);

/// A party's split table file ({"format": "veil-split-table", ...}) of
/// model `model_id`. An infinite threshold is written as "inf" or "-inf"
/// (JSON has no infinity); a NaN one is refused.
void save_split_table(const split_export& table, const std::string& model_id,
                      const std::string& path);
/// Reads one back; throws input_error naming the file (and `party` when the
/// file is another party's, the model when it is another model's).
split_export load_split_table(const std::string& path, const std::string& party,
                              const std::string& model_id);

/// Checks a part's "party" and "model" fields against the expected ones;
/// throws input_error.
void check_part_owner(const std::string& party, const std::string& model_id,
                      const std::string& expected_party,
                      const std::string& expected_model);

/// A role's split table ((tree, node) -> a split with a column index
/// `feature`, `threshold` and `default_left`) as a part, its features named
/// by `columns`.
template <class Table>
split_export export_splits(const std::string& party, const Table& table,
                           const std::vector<std::string>& columns) {
  split_export e;
  e.party = party;
  for (const auto& [key, s] : table) {
    auto f = static_cast<std::size_t>(s.feature);
    e.splits.push_back({key.first, key.second,
                        f < columns.size() ? columns[f] : std::string{},
                        s.threshold, s.default_left});
  }
  return e;
}

/// A part's splits as a role's table: each feature found by name among
/// `columns` (the party's rows to predict); `make(column, entry)` builds
/// the role's split. Throws input_error naming `path` for a feature that is
/// not one of `columns`.
template <class Table, class Make>
Table import_splits(const split_export& part,
                    const std::vector<std::string>& columns,
                    const std::string& path, Make make) {
  Table table;
  for (const auto& e : part.splits) {
    std::size_t k = 0;
    while (k < columns.size() && columns[k] != e.feature)
      ++k;
    if (k == columns.size())
      throw veil::input_error(path + ": a split on \"" + e.feature +
                              "\", which is not one of this party's columns");
    table[{e.tree, e.node}] = make(static_cast<std::int32_t>(k), e);
  }
  return table;
}

} // namespace veil::protocols::session
