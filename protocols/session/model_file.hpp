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

#include "learners/boost/model.hpp"
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
};

/// Writes it atomically; throws input_error naming the file.
void save_federated_model(const federated_model& m, const std::string& path);

/// Reads it; throws input_error naming the file and the field. A model
/// file that is not a federated session's is refused with a message saying
/// to predict it without --config.
federated_model load_federated_model(const std::string& path);

/// Where party `party` keeps its part of the model saved as `model_path`.
std::string part_path(const std::string& model_path, const std::string& party);

/// Writes a model part (JSON whose "format" is `format`) to `path`
/// atomically, where a party runs. The path comes from the session's
/// coordinator, so an existing file is replaced only if it is a part of the
/// same format (a model saved again): anything else is refused, naming it.
/// Throws input_error.
void write_part_file(const std::string& path, const std::string& format,
                     const std::string& text);

/// A party's split table file ({"format": "veil-split-table", ...}).
void save_split_table(const split_export& table, const std::string& path);
/// Reads one back; throws input_error naming the file (and `party` when the
/// file is another party's).
split_export load_split_table(const std::string& path,
                              const std::string& party);

} // namespace veil::protocols::session
