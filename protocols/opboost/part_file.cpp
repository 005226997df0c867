#include "protocols/opboost/part_file.hpp"

#include <cmath>
#include <limits>

#include <nlohmann/json.hpp>

#include "learners/boost/model_io.hpp"
#include "learners/input_error.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::protocols::opboost {

using nlohmann::json;

namespace {

/// NaN (no fill: the lower bound) as null.
json number_or_null(double x) {
  return std::isnan(x) ? json() : json(x);
}

double number_of(const json& j) {
  return j.is_null() ? std::numeric_limits<double>::quiet_NaN()
                     : j.get<double>();
}

} // namespace

void save_party_part(const party_part& part, const std::string& path) {
  const auto& p = part.settings;
  const auto& m = p.mechanism;
  json columns = json::array();
  for (std::size_t f = 0; f < part.columns.size(); ++f)
    columns.push_back({{"name", part.columns[f]},
                       {"lower", part.maps[f].lower},
                       {"upper", part.maps[f].upper},
                       {"fill", number_or_null(part.maps[f].fill)}});
  json j = {{"format", "veil-opboost-part"},
            {"version", 1},
            {"party", part.party},
            {"model", part.model_id},
            {"domain", {p.dom.lo, p.dom.hi}},
            {"mechanism",
             {{"kind", to_string(m.kind)},
              {"sampler", to_string(m.sampler)},
              {"epsilon", m.epsilon},
              {"theta", m.theta},
              {"alpha", m.alpha},
              {"dsize", static_cast<int>(m.dsize)},
              {"layout", static_cast<int>(m.layout)}}},
            {"budget", static_cast<int>(p.budget)},
            {"columns", columns}};
  session::write_part_file(path, "veil-opboost-part", j.dump(2) + "\n");
}

party_part load_party_part(const std::string& path, const std::string& party,
                           const std::string& model_id) {
  auto j = learners::read_json_file(path, "model part");
  party_part part;
  try {
    if (!j.is_object() || j.value("format", "") != "veil-opboost-part")
      throw input_error("not an OpBoost party's part: field \"format\" is not "
                        "\"veil-opboost-part\"");
    if (j.value("version", 0) != 1)
      throw input_error("part version " +
                        std::to_string(j.value("version", 0)) +
                        " is not supported (expected 1)");
    part.party = j.at("party").get<std::string>();
    part.model_id = j.value("model", "");
    session::check_part_owner(part.party, part.model_id, party, model_id);
    auto& p = part.settings;
    p.dom.lo = j.at("domain").at(0).get<std::int64_t>();
    p.dom.hi = j.at("domain").at(1).get<std::int64_t>();
    const auto& m = j.at("mechanism");
    p.mechanism.kind = parse_mechanism(m.at("kind").get<std::string>());
    p.mechanism.sampler = parse_sampler(m.at("sampler").get<std::string>());
    p.mechanism.epsilon = m.at("epsilon").get<double>();
    p.mechanism.theta = m.at("theta").get<std::int64_t>();
    p.mechanism.alpha = m.at("alpha").get<double>();
    auto dsize = m.at("dsize").get<int>(), layout = m.at("layout").get<int>(),
         budget = j.at("budget").get<int>();
    if (dsize < 0 || dsize > 1 || layout < 0 || layout > 1 || budget < 0 ||
        budget > 1)
      throw input_error("a mechanism setting out of range");
    p.mechanism.dsize = static_cast<dsize_rule>(dsize);
    p.mechanism.layout = static_cast<partition_layout>(layout);
    p.budget = static_cast<budget_split>(budget);
    p.validate();
    for (const auto& c : j.at("columns")) {
      part.columns.push_back(c.at("name").get<std::string>());
      feature_map f;
      f.lower = c.at("lower").get<double>();
      f.upper = c.at("upper").get<double>();
      f.fill = number_of(c.at("fill"));
      f.validate(part.columns.back());
      part.maps.push_back(f);
    }
  } catch (const json::exception& e) {
    throw input_error(path + ": malformed OpBoost part (" +
                      std::string(e.what()) + ")");
  } catch (const input_error& e) {
    throw input_error(path + ": " + e.what());
  }
  return part;
}

} // namespace veil::protocols::opboost
