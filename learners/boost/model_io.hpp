#pragma once

#include <string>
#include <vector>

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

/// A file to write: its contents and, for a new file, its mode (an
/// existing file keeps its own); private files (model parts) get 0600.
struct output_file {
  std::string path;
  std::string text;
  bool private_mode = false;
};

/// Writes every file through a temporary file in its folder (created
/// exclusively under an unpredictable name, never through a symlink, and
/// synced), then renames them all: a failure before the renames leaves no
/// file changed, and never a half-written one. A file that exists keeps
/// its mode; a new one gets 0666 (0600 if private) less the umask. Throws
/// input_error naming the file.
void write_files_atomically(const std::vector<output_file>& files);

/// One file, as write_files_atomically.
void write_file_atomically(const std::string& path, const std::string& text,
                           bool private_mode = false);

} // namespace veil::learners
