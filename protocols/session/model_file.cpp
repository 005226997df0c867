#include "protocols/session/model_file.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "learners/boost/model_io.hpp"
#include "learners/input_error.hpp"

namespace veil::protocols::session {

using nlohmann::json;

void save_federated_model(const federated_model& m, const std::string& path) {
  auto j = learners::to_json(m.model);
  j["session"] = {{"protocol", m.protocol},
                  {"parties", m.parties},
                  {"features", m.features},
                  {"label_column", m.label_column},
                  {"id_column", m.id_column}};
  learners::write_file_atomically(path, j.dump(1) + "\n");
}

federated_model load_federated_model(const std::string& path) {
  auto j = learners::read_json_file(path, "model");
  federated_model m;
  try {
    if (!j.is_object() || !j.contains("session") || !j["session"].is_object() ||
        !j.contains("federated"))
      throw input_error("not a federated session's model file: predict it "
                        "with veil predict --model " +
                        path + " --data FILE (no --config)");
    m.model = learners::model_from_json(j, true);
    const auto& s = j["session"];
    m.protocol = s.at("protocol").get<std::string>();
    m.parties = s.at("parties").get<std::vector<std::string>>();
    m.features = s.at("features").get<std::vector<std::vector<std::string>>>();
    m.label_column = s.value("label_column", "");
    m.id_column = s.value("id_column", "");
  } catch (const json::exception& e) {
    throw input_error(path + ": field \"session\" is malformed (" +
                      std::string(e.what()) + ")");
  } catch (const input_error& e) {
    throw input_error(path + ": " + e.what());
  }
  if (m.features.size() != m.parties.size() || m.parties.size() < 2)
    throw input_error(path + ": field \"session\" names " +
                      std::to_string(m.parties.size()) + " parties and " +
                      std::to_string(m.features.size()) + " column lists");
  return m;
}

std::string part_path(const std::string& model_path, const std::string& party) {
  return model_path + "." + party;
}

void write_part_file(const std::string& path, const std::string& format,
                     const std::string& text) {
  std::error_code ec;
  auto status = std::filesystem::symlink_status(path, ec);
  if (!ec && std::filesystem::exists(status)) {
    bool same = false;
    if (std::filesystem::is_regular_file(status)) {
      std::ifstream in(path, std::ios::binary);
      auto j = json::parse(in, nullptr, false);
      same =
          !j.is_discarded() && j.is_object() && j.value("format", "") == format;
    }
    if (!same)
      throw input_error("refusing to write the model part " + path +
                        ": the file exists and is not a " + format +
                        " file (a part is written only over an earlier part)");
  }
  learners::write_file_atomically(path, text);
}

void save_split_table(const split_export& table, const std::string& path) {
  json splits = json::array();
  for (const auto& s : table.splits)
    splits.push_back({{"tree", s.tree},
                      {"node", s.node},
                      {"feature", s.feature},
                      {"threshold", s.threshold},
                      {"default_left", s.default_left}});
  json j = {{"format", "veil-split-table"},
            {"version", 1},
            {"party", table.party},
            {"splits", splits}};
  write_part_file(path, "veil-split-table", j.dump(2) + "\n");
}

split_export load_split_table(const std::string& path,
                              const std::string& party) {
  auto j = learners::read_json_file(path, "split table");
  split_export t;
  try {
    if (!j.is_object() || j.value("format", "") != "veil-split-table")
      throw input_error("not a split table: field \"format\" is not "
                        "\"veil-split-table\"");
    if (j.value("version", 0) != 1)
      throw input_error("split table version " +
                        std::to_string(j.value("version", 0)) +
                        " is not supported (expected 1)");
    t.party = j.at("party").get<std::string>();
    if (t.party != party)
      throw input_error("this is " + t.party + "'s split table, not " + party +
                        "'s");
    for (const auto& s : j.at("splits")) {
      split_entry e;
      e.tree = s.at("tree").get<std::int32_t>();
      e.node = s.at("node").get<std::int32_t>();
      e.feature = s.at("feature").get<std::string>();
      e.threshold = s.at("threshold").is_null()
                        ? std::numeric_limits<float>::quiet_NaN()
                        : s.at("threshold").get<float>();
      e.default_left = s.at("default_left").get<bool>();
      if (e.tree < 0 || e.node < 0)
        throw input_error("a split at tree " + std::to_string(e.tree) +
                          ", node " + std::to_string(e.node));
      t.splits.push_back(std::move(e));
    }
  } catch (const json::exception& e) {
    throw input_error(path + ": malformed split table (" +
                      std::string(e.what()) + ")");
  } catch (const input_error& e) {
    throw input_error(path + ": " + e.what());
  }
  return t;
}

} // namespace veil::protocols::session
