#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "learners/boost/model.hpp"

namespace veil::learners {

/// Veil's own model file: {"format": "veil-model", "version": 1, ...}.
nlohmann::json to_json(const model& m);
/// Throws input_error naming the field that is missing or malformed. A
/// federated session's file (its "federated" field set) is refused unless
/// `federated` is true: then its splits may hold no threshold (null: the
/// party that owns the split keeps it) and no feature (-1), and the caller
/// must predict through the parties.
model model_from_json(const nlohmann::json& j, bool federated = false);

/// Writes atomically (temporary file, then rename).
void save_model(const model& m, const std::string& path);
model load_model(const std::string& path);
/// Parses `path` as JSON; errors name the file.
nlohmann::json read_json_file(const std::string& path, const char* what);

/// Writes `text` to `path` through a temporary file in the same folder and a
/// rename, so a failure never leaves a half-written file. Throws input_error.
void write_file_atomically(const std::string& path, const std::string& text);

} // namespace veil::learners
