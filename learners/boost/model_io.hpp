#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "learners/boost/model.hpp"

namespace veil::learners {

/// Veil's own model file: {"format": "veil-model", "version": 1, ...}.
nlohmann::json to_json(const model& m);
/// Throws input_error naming the field that is missing or malformed.
model model_from_json(const nlohmann::json& j);

/// Writes atomically (temporary file, then rename).
void save_model(const model& m, const std::string& path);
model load_model(const std::string& path);

/// Writes `text` to `path` through a temporary file in the same folder and a
/// rename, so a failure never leaves a half-written file. Throws input_error.
void write_file_atomically(const std::string& path, const std::string& text);

} // namespace veil::learners
