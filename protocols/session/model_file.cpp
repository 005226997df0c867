#include "protocols/session/model_file.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include <nlohmann/json.hpp>

#include "learners/boost/model_io.hpp"
#include "learners/input_error.hpp"
#include "protocols/crypto/random.hpp"

namespace veil::protocols::session {

using nlohmann::json;

std::string federated_model_text(const federated_model& m) {
  auto j = learners::to_json(m.model);
  j["session"] = {{"protocol", m.protocol},   {"parties", m.parties},
                  {"features", m.features},   {"label_column", m.label_column},
                  {"id_column", m.id_column}, {"model_id", m.model_id}};
  return j.dump(1) + "\n";
}

void save_federated_model(const federated_model& m, const std::string& path) {
  learners::write_file_atomically(path, federated_model_text(m));
}

bool is_federated_model(const json& j) {
  return j.is_object() && j.contains("session") && j["session"].is_object() &&
         j.contains("federated");
}

federated_model load_federated_model(const std::string& path) {
  return federated_model_from_json(learners::read_json_file(path, "model"),
                                   path);
}

federated_model federated_model_from_json(const json& j,
                                          const std::string& path) {
  federated_model m;
  try {
    if (!is_federated_model(j))
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
    m.model_id = s.value("model_id", "");
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

std::string new_model_id() {
  crypto::system_random rng;
  char buf[33];
  std::snprintf(buf, sizeof buf, "%016llx%016llx",
                static_cast<unsigned long long>(rng()),
                static_cast<unsigned long long>(rng()));
  return buf;
}

void check_part_owner(const std::string& party, const std::string& model_id,
                      const std::string& expected_party,
                      const std::string& expected_model) {
  if (party != expected_party)
    throw input_error("this is " + party + "'s part, not " + expected_party +
                      "'s");
  if (model_id != expected_model)
    throw input_error("this part belongs to model " +
                      (model_id.empty() ? std::string("(none)") : model_id) +
                      ", not to model " + expected_model +
                      " (the model file was trained again or replaced)");
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
  learners::write_file_atomically(path, text, true); // 0600: a party's own
}

namespace {

json threshold_json(float x, const std::string& path, const split_entry& s) {
  if (std::isnan(x))
    throw input_error(path + ": the split at tree " + std::to_string(s.tree) +
                      ", node " + std::to_string(s.node) +
                      " has no threshold (NaN)");
  if (std::isinf(x))
    return x > 0 ? "inf" : "-inf";
  return x;
}

float threshold_of(const json& j) {
  if (j.is_number())
    return j.get<float>();
  if (j.is_string() && j.get<std::string>() == "inf")
    return std::numeric_limits<float>::infinity();
  if (j.is_string() && j.get<std::string>() == "-inf")
    return -std::numeric_limits<float>::infinity();
  throw input_error("a threshold that is not a number");
}

} // namespace

void save_split_table(const split_export& table, const std::string& model_id,
                      const std::string& path) {
  json splits = json::array();
  for (const auto& s : table.splits)
    splits.push_back({{"tree", s.tree},
                      {"node", s.node},
                      {"feature", s.feature},
                      {"threshold", threshold_json(s.threshold, path, s)},
                      {"default_left", s.default_left}});
  json j = {{"format", "veil-split-table"},
            {"version", 1},
            {"party", table.party},
            {"model", model_id},
            {"splits", splits}};
  write_part_file(path, "veil-split-table", j.dump(2) + "\n");
}

split_export load_split_table(const std::string& path, const std::string& party,
                              const std::string& model_id) {
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
    check_part_owner(t.party, j.value("model", ""), party, model_id);
    for (const auto& s : j.at("splits")) {
      split_entry e;
      e.tree = s.at("tree").get<std::int32_t>();
      e.node = s.at("node").get<std::int32_t>();
      e.feature = s.at("feature").get<std::string>();
      e.threshold = threshold_of(s.at("threshold"));
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
