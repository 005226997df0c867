#include "actors/hosting.hpp"

#include <algorithm>
#include <cctype>

#include "learners/input_error.hpp"

namespace veil::actors {

std::string printable(const std::string& s) {
  std::string out = s.substr(0, 200);
  for (auto& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      c = '?';
  return s.size() > 200 ? out + "..." : out;
}

std::string refuse_datasets(const node_catalog& catalog,
                            const std::vector<std::string>& datasets) {
  for (const auto& name : datasets) {
    if (catalog.datasets.contains(name))
      continue;
    bool path = name.find('/') != std::string::npos ||
                name.find('\\') != std::string::npos;
    return "data \"" + printable(name) + "\": " +
           (path ? "a party on a node names its data by the name the node "
                   "serves it under (veil node --data NAME=PATH), not by a "
                   "path"
                 : "the node serves no dataset of that name") +
           " (it serves: " + catalog.names() + ")";
  }
  return {};
}

protocols::session::data_spec
served_spec(const hosting& host, const protocols::session::data_spec& spec) {
  const auto& name = spec.path;
  if (std::find(host.datasets.begin(), host.datasets.end(), name) ==
      host.datasets.end())
    throw input_error("data \"" + name +
                      "\": not a dataset its session named when it was "
                      "started");
  if (auto why = refuse_datasets(*host.node, {name}); !why.empty())
    throw input_error(why);
  const auto& served = host.node->datasets.at(name);
  auto out = spec;
  out.path = served.path;
  if (!served.restricted())
    return out;
  const auto& allowed = served.columns;
  auto refuse = [&](const std::string& column, const char* as,
                    const std::string& instead) {
    throw input_error("dataset \"" + name + "\": column \"" + column +
                      "\" (asked for as " + as +
                      ") is not one its node allows (" + instead + ")");
  };
  // The id's values reach the coordinator: only the column the node names
  // may be joined on, so no feature can be read out as an id.
  if (!spec.id_column.empty() && spec.id_column != served.id)
    refuse(spec.id_column, "the id",
           served.id.empty() ? "it allows no id column"
                             : "its id column is \"" + served.id + "\"");
  auto check = [&](const std::string& column, const char* as) {
    if (column.empty() || allowed.empty())
      return;
    if (column == served.id ||
        std::find(allowed.begin(), allowed.end(), column) == allowed.end())
      refuse(column, as, "see its node's columns");
  };
  check(spec.label_column, "the label");
  for (const auto& c : spec.feature_columns)
    check(c, "a feature");
  if (out.feature_columns.empty() && !allowed.empty())
    for (const auto& c : allowed)
      if (c != served.id && c != spec.label_column)
        out.feature_columns.push_back(c);
  return out;
}

std::string without_paths(const hosting& host, std::string message) {
  if (!host.hosted())
    return message;
  for (const auto& [name, d] : host.node->datasets) {
    if (d.path.empty())
      continue;
    auto with = "dataset \"" + name + "\"";
    for (auto at = message.find(d.path); at != std::string::npos;
         at = message.find(d.path, at + with.size()))
      message.replace(at, d.path.size(), with);
  }
  if (const auto& store = host.node->store; !store.empty())
    for (auto at = message.find(store); at != std::string::npos;
         at = message.find(store, at + 1))
      message.replace(at, store.size(), "its node's store");
  return message;
}

std::string stored_part_path(const hosting& host, const std::string& party,
                             const std::string& model_id) {
  if (host.node->store.empty())
    throw input_error("its node keeps no model parts (start the node with "
                      "--store FOLDER)");
  bool hex = model_id.size() == 32 &&
             std::all_of(model_id.begin(), model_id.end(), [](char c) {
               return std::isxdigit(static_cast<unsigned char>(c)) != 0;
             });
  if (!hex)
    throw input_error("model id \"" + model_id +
                      "\" is not 32 hexadecimal digits");
  // The party's name is a session name (letters, digits, '_', '-', '.'),
  // checked by the roster: no separator can reach the path.
  return host.node->store + "/" + model_id + "." + party + ".part";
}

} // namespace veil::actors
