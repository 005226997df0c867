#include "apps/veil/session_config.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <optional>
#include <sstream>
#include <utility>

#include <toml.hpp>

#include "actors/session.hpp"
#include "apps/veil/settings.hpp"
#include "learners/input_error.hpp"
#include "protocols/descriptor.hpp"

namespace veil::apps {

const std::vector<protocol_info>& known_protocols() {
  // Every name of every protocol descriptor, with its settings' keys: the
  // descriptors are the one place a protocol's keys are listed.
  static const std::vector<protocol_info> list = [] {
    std::vector<protocol_info> out;
    for (const auto* d : protocols::all_protocols()) {
      protocol_info info;
      info.federated = d->federated;
      info.one_table = d->one_table;
      info.spread_labels = d->spread_labels;
      for (const auto& s : d->settings) {
        (s.prefix ? info.parameter_prefixes : info.parameters).push_back(s.key);
        if (s.type == protocols::setting_type::file)
          info.file_parameters.push_back(s.key);
      }
      // Renamed keys reach the protocol, which says the new name.
      for (const auto& r : d->renamed)
        info.parameters.push_back(r.first);
      for (const auto& n : d->names) {
        info.name = n;
        out.push_back(info);
      }
    }
    return out;
  }();
  return list;
}

bool protocol_info::takes(const std::string& key) const {
  if (std::find(parameters.begin(), parameters.end(), key) != parameters.end())
    return true;
  for (auto prefix : parameter_prefixes)
    if (key.size() > prefix.size() && key.rfind(prefix, 0) == 0)
      return true;
  return false;
}

namespace {

namespace fs = std::filesystem;

// -- messages -----------------------------------------------------------------

/// "FILE:LINE: " for a value parsed from the file, "FILE: " otherwise.
std::string where(const std::string& file, const toml::value* at) {
  std::string s = file;
  // A value that toml11 did not read from the file (an implicit table) has
  // a default location, named "unknown file".
  if (at && at->location().file_name() != "unknown file")
    s += ":" + std::to_string(at->location().line());
  return s.empty() ? s : s + ": ";
}

[[noreturn]] void fail(const std::string& file, const toml::value* at,
                       const std::string& what) {
  throw input_error(where(file, at) + what);
}

std::string in_quotes(std::string_view s) {
  return "\"" + std::string(s) + "\"";
}

std::string join(const std::vector<std::string>& items,
                 std::string_view sep = ", ") {
  std::string s;
  for (auto& x : items)
    s += (s.empty() ? "" : std::string(sep)) + x;
  return s;
}

std::string type_name(const toml::value& v) {
  switch (v.type()) {
  case toml::value_t::boolean:
    return "a boolean";
  case toml::value_t::integer:
    return "an integer";
  case toml::value_t::floating:
    return "a float";
  case toml::value_t::string:
    return "a string";
  case toml::value_t::offset_datetime:
  case toml::value_t::local_datetime:
  case toml::value_t::local_date:
  case toml::value_t::local_time:
    return "a date or time";
  case toml::value_t::array:
    return "an array";
  case toml::value_t::table:
    return "a table";
  default:
    return "empty";
  }
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j)
    row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::size_t up = row[j];
      row[j] = std::min(
          {row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// "unknown key "lable" (did you mean "label"? known: ...)".
std::string unknown(std::string_view what, const std::string& key,
                    const std::vector<std::string>& known) {
  std::string s = "unknown " + std::string(what) + " " + in_quotes(key) + " (";
  std::string best;
  std::size_t best_d = 3;
  for (auto& k : known) {
    auto d = edit_distance(key, k);
    if (d < best_d && d < k.size()) {
      best = k;
      best_d = d;
    }
  }
  if (!best.empty())
    s += "did you mean " + in_quotes(best) + "? ";
  return s + "known: " + (known.empty() ? "none" : join(known)) + ")";
}

// -- reading values -----------------------------------------------------------

bool is_array_of_tables(const toml::value& v) {
  return v.is_array() && !v.as_array().empty() &&
         std::all_of(v.as_array().begin(), v.as_array().end(),
                     [](const toml::value& x) { return x.is_table(); });
}

/// The keys of a table in the order they appear in the file (toml11 keeps
/// tables in an unordered_map), so that the first problem reported is the
/// first one in the file.
std::vector<std::pair<std::string, const toml::value*>>
in_file_order(const toml::value& table) {
  std::vector<std::pair<std::string, const toml::value*>> keys;
  for (auto& [k, v] : table.as_table())
    keys.emplace_back(k, &v);
  std::stable_sort(keys.begin(), keys.end(), [](auto& a, auto& b) {
    auto la = a.second->location(), lb = b.second->location();
    return std::pair(la.line(), la.column()) <
           std::pair(lb.line(), lb.column());
  });
  return keys;
}

/// Reads a session file's values, naming the file in every error.
struct reader {
  std::string file;

  [[noreturn]] void fail(const toml::value* at, const std::string& what) const {
    veil::apps::fail(file, at, what);
  }

  void expect(const toml::value& v, bool ok, const std::string& context,
              const std::string& expected) const {
    if (!ok)
      fail(&v, context + ": expected " + expected + ", got " + type_name(v));
  }

  const toml::value& table(const toml::value& v,
                           const std::string& context) const {
    expect(v, v.is_table(), context, "a table");
    return v;
  }

  /// Fails on the first key of `v` (in file order) not in `known`.
  void only_keys(const toml::value& v, const std::string& context,
                 const std::vector<std::string>& known) const {
    for (auto& [k, x] : in_file_order(v))
      if (std::find(known.begin(), known.end(), k) == known.end())
        fail(x, context + ": " + unknown("key", k, known));
  }

  /// A non-empty string.
  std::string text(const toml::value& v, const std::string& context) const {
    expect(v, v.is_string(), context, "a string");
    auto s = v.as_string().str;
    if (s.empty())
      fail(&v, context + " is empty: give a value or leave the key out");
    return s;
  }

  double number(const toml::value& v, const std::string& context) const {
    expect(v, v.is_integer() || v.is_floating(), context, "a number");
    return v.is_integer() ? static_cast<double>(v.as_integer())
                          : v.as_floating();
  }

  /// A scalar as the text `--set` would take: integers in decimal, floats
  /// in their shortest round-trip form (always with a '.' or an exponent,
  /// so that an integer setting refuses 100.0), booleans as true/false.
  /// A quoted number or boolean is refused: it is a wrong type in TOML.
  std::string setting_text(const toml::value& v,
                           const std::string& context) const {
    if (v.is_boolean())
      return v.as_boolean() ? "true" : "false";
    if (v.is_integer())
      return std::to_string(v.as_integer());
    if (v.is_floating()) {
      char buf[64];
      auto r = std::to_chars(buf, buf + sizeof buf, v.as_floating());
      std::string s(buf, r.ptr);
      if (s.find_first_of(".eEni") == std::string::npos)
        s += ".0";
      return s;
    }
    expect(v, v.is_string(), context, "a number, a boolean or a string");
    const auto& s = v.as_string().str;
    double x = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
    bool numeric = !s.empty() && ec == std::errc{} && p == s.data() + s.size();
    if (numeric || s == "true" || s == "false")
      fail(&v, context + ": expected a " + (numeric ? "number" : "boolean") +
                   ", got a string: write it without quotes");
    return s;
  }
};

/// apply_setting's message without its "--set KEY=VALUE: " prefix.
std::string setting_message(const std::string& assignment,
                            const std::string& message) {
  auto prefix = "--set " + assignment + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size())
                                       : message;
}

/// booster_params::validate, with num_class 0 (= infer from the labels)
/// standing for a valid class count. The error message, if any.
std::optional<std::string> validation_error(learners::booster_params p) {
  if (p.num_class == 0)
    p.num_class = 2;
  try {
    p.validate();
  } catch (const input_error& e) {
    return std::string(e.what());
  }
  return std::nullopt;
}

const protocol_info* find_protocol(std::string_view name) {
  for (auto& p : known_protocols())
    if (p.name == name)
      return &p;
  return nullptr;
}

std::vector<std::string> protocol_names() {
  std::vector<std::string> names;
  for (auto& p : known_protocols())
    names.emplace_back(p.name);
  return names;
}

/// The checks on the protocol that depend on the rest of the session.
/// `at` is the protocol's value in the file (a string or a [protocol]
/// table; null when absent or for an override); `context` prefixes the
/// message ("--set protocol=x" for an override, empty in the file).
void check_protocol(const session_config& c, const toml::value* at,
                    const std::string& context,
                    const std::vector<const toml::value*>& party_table = {}) {
  // The value of `key` in the [protocol] table (a dotted key through its
  // sub-tables), else the protocol's own value.
  auto in_table = [&](const std::string& key) {
    const toml::value* v = at;
    std::size_t from = 0;
    while (v && v->is_table()) {
      auto dot = key.find('.', from);
      auto part = key.substr(from, dot == std::string::npos ? dot : dot - from);
      if (!v->contains(part))
        return at;
      v = &v->at(part);
      if (dot == std::string::npos)
        return v;
      from = dot + 1;
    }
    return at;
  };
  auto prefix = context.empty() ? context : context + ": ";
  auto info = find_protocol(c.protocol);
  if (!info)
    fail(c.source, in_table("name"),
         prefix + unknown("protocol", c.protocol, protocol_names()));
  std::vector<std::string> params(info->parameters.begin(),
                                  info->parameters.end());
  for (auto prefix : info->parameter_prefixes)
    params.push_back(std::string(prefix) + "COLUMN");
  for (auto& [k, v] : c.protocol_params)
    if (!info->takes(k))
      fail(c.source, in_table(k),
           prefix + "protocol " + c.protocol + " has no parameter " +
               in_quotes(k) + " (its parameters: " +
               (params.empty() ? "none" : join(params)) + ")");
  if (info->federated && c.parties.size() < (info->one_table ? 1u : 2u))
    fail(c.source, in_table("name"),
         prefix + "protocol " + c.protocol +
             " is federated and needs at least 2 parties, the session has " +
             std::to_string(c.parties.size()) +
             " (protocol \"centralized\" trains on one party's data)");
  // Who holds labels: exactly one party, or (spread labels) at least one.
  const auto& ps = c.parties;
  auto party_at = [&](std::size_t i) {
    return i < party_table.size() ? party_table[i] : nullptr;
  };
  auto line = [&](std::size_t i) {
    auto t = party_at(i);
    return t ? " (line " + std::to_string(t->location().line()) + ")"
             : std::string();
  };
  std::vector<std::size_t> labelled;
  for (std::size_t i = 0; i < ps.size(); ++i)
    if (!ps[i].label.empty())
      labelled.push_back(i);
  if (labelled.empty())
    fail(c.source, nullptr,
         prefix + "no party has a label: " +
             (info->spread_labels
                  ? "at least one [[party]] must name its label column"
                  : "exactly one [[party]] must name its label column") +
             " (label = \"...\")");
  if (labelled.size() > 1 && !info->spread_labels) {
    std::vector<std::string> who;
    for (auto i : labelled)
      who.push_back(in_quotes(ps[i].name) + line(i) + " label " +
                    in_quotes(ps[i].label));
    fail(c.source, party_at(labelled[1]),
         prefix + "parties " + join(who, " and ") +
             " both have a label: exactly one party may hold the labels "
             "with protocol " +
             c.protocol +
             " (the feverless protocols spread them over several parties)");
  }
  // The metrics gather the test labels in this process; a test file that
  // is the training file would hand over a client's training labels.
  if (info->spread_labels)
    for (std::size_t i = 0; i < ps.size(); ++i)
      if (!ps[i].label.empty() && !ps[i].test.empty() &&
          ps[i].test == ps[i].data)
        fail(c.source, party_at(i),
             prefix + "party " + in_quotes(ps[i].name) +
                 ": its test file is its training file; with protocol " +
                 c.protocol +
                 " the test labels are gathered in this process for the "
                 "metrics, which would reveal its training labels: give a "
                 "separate test file, or none (no metrics)");
}

/// The timeout's range is the "timeout" session setting's.
void check_timeout(const std::string& file, const toml::value* at,
                   const std::string& context, double t) {
  try {
    checked_timeout(t, context);
  } catch (const input_error& e) {
    fail(file, at, e.what());
  }
}

bool valid_name(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char ch) {
    return std::isalnum(ch) || ch == '_' || ch == '-';
  });
}

} // namespace

/// Splits "HOST:PORT" or "[IPV6]:PORT"; false if it is neither.
bool parse_location(const std::string& s, std::string& host,
                    std::uint16_t& port) {
  auto colon = s.rfind(':');
  if (colon == std::string::npos || colon == 0)
    return false;
  auto h = s.substr(0, colon);
  auto p = s.substr(colon + 1);
  if (h.front() == '[') {
    if (h.size() < 3 || h.back() != ']')
      return false;
    h = h.substr(1, h.size() - 2);
    if (!std::all_of(h.begin(), h.end(), [](unsigned char ch) {
          return std::isxdigit(ch) || ch == ':' || ch == '.';
        }))
      return false;
  } else if (!std::all_of(h.begin(), h.end(), [](unsigned char ch) {
               return std::isalnum(ch) || ch == '.' || ch == '-' || ch == '_';
             })) {
    return false; // includes an unbracketed IPv6 address
  }
  if (p.empty() || p.size() > 5 ||
      !std::all_of(p.begin(), p.end(),
                   [](unsigned char ch) { return std::isdigit(ch); }))
    return false;
  int n = std::stoi(p);
  if (n < 1 || n > 65535)
    return false;
  host = h;
  port = static_cast<std::uint16_t>(n);
  return true;
}

namespace {

/// `path` against the session file's folder, unless absolute; made
/// absolute, so that it names the same file for a node started elsewhere
/// on this machine.
std::string resolve(const std::string& session_file, const std::string& path) {
  fs::path p(path);
  if (p.is_absolute())
    return path;
  std::error_code ec;
  auto folder = fs::absolute(session_file, ec).parent_path();
  return (folder / p).lexically_normal().string();
}

// -- the parts of a session ---------------------------------------------------

void read_learner(const reader& r, const toml::value& v, session_config& c) {
  r.table(v, "[learner]");
  auto keys = in_file_order(v);
  std::vector<std::string> assignments;
  for (auto& [k, x] : keys)
    assignments.push_back(k + "=" + r.setting_text(*x, "[learner] " + k));
  // Applies every setting but the one at `skip`.
  auto build = [&](std::size_t skip) {
    learners::booster_params p;
    p.num_class = 0;
    for (std::size_t i = 0; i < keys.size(); ++i) {
      if (i == skip)
        continue;
      try {
        apply_setting(p, assignments[i]);
      } catch (const input_error& e) {
        r.fail(keys[i].second,
               "[learner] " + keys[i].first + " = " +
                   assignments[i].substr(keys[i].first.size() + 1) + ": " +
                   setting_message(assignments[i], e.what()));
      }
    }
    return p;
  };
  c.params = build(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i)
    c.learner_keys[keys[i].first] =
        assignments[i].substr(keys[i].first.size() + 1);
  auto error = validation_error(c.params);
  if (!error)
    return;
  // Blame the setting without which the parameters are valid, preferring
  // one whose name the message mentions (num_class rather than objective).
  const toml::value* culprit = nullptr;
  std::string culprit_key;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (validation_error(build(i)))
      continue;
    bool named =
        error->find("parameter " + keys[i].first + " ") != std::string::npos;
    if (!culprit || named) {
      culprit = keys[i].second;
      culprit_key = keys[i].first;
    }
    if (named)
      break;
  }
  if (culprit)
    r.fail(culprit, "[learner] " + culprit_key + ": " + *error);
  r.fail(&v, "[learner]: " + *error);
}

void read_protocol(const reader& r, const toml::value& v, session_config& c) {
  if (v.is_string()) {
    c.protocol = r.text(v, "protocol");
    return;
  }
  r.expect(v, v.is_table(), "protocol",
           "a string (protocol = \"plain\") or a [protocol] table");
  bool named = false;
  // A dotted key (paillier.bits = 2048) is a sub-table in TOML: flatten it.
  std::function<void(const toml::value&, const std::string&)> add =
      [&](const toml::value& t, const std::string& prefix) {
        for (auto& [k, x] : in_file_order(t)) {
          auto key = prefix + k;
          if (key == "name") {
            c.protocol = r.text(*x, "[protocol] name");
            named = true;
          } else if (x->is_table()) {
            add(*x, key + ".");
          } else {
            c.protocol_params[key] = r.setting_text(*x, "[protocol] " + key);
            c.protocol_param_lines[key] =
                static_cast<int>(x->location().line());
          }
        }
      };
  add(v, "");
  if (!named)
    r.fail(&v, "[protocol] has no name (e.g. name = \"plain\")");
}

party_config read_party(const reader& r, const toml::value& v,
                        std::size_t index) {
  std::string context = "[[party]] #" + std::to_string(index + 1);
  r.table(v, context);
  auto& t = v.as_table();
  // Name the party in the messages as soon as it has a usable name.
  if (auto it = t.find("name"); it != t.end() && it->second.is_string() &&
                                valid_name(it->second.as_string().str))
    context = "party " + in_quotes(it->second.as_string().str);
  r.only_keys(v, context,
              {"name", "data", "test", "id", "features", "label", "location"});
  party_config p;
  auto name = t.find("name");
  if (name == t.end())
    r.fail(&v, context + " has no name (e.g. name = \"bank\")");
  p.name = r.text(name->second, context + " name");
  if (!valid_name(p.name))
    r.fail(&name->second, context + ": name " + in_quotes(p.name) +
                              " may only hold letters, digits, '_' and '-'");
  context = "party " + in_quotes(p.name);
  auto data = t.find("data");
  if (data == t.end())
    r.fail(&v, context + " has no data file (key data)");
  p.data = r.text(data->second, context + " data");
  if (auto it = t.find("test"); it != t.end())
    p.test = r.text(it->second, context + " test");
  if (auto it = t.find("id"); it != t.end())
    p.id = r.text(it->second, context + " id");
  if (auto it = t.find("label"); it != t.end()) {
    p.label = r.text(it->second, context + " label");
    if (p.label == p.id)
      r.fail(&it->second, context + ": label " + in_quotes(p.label) +
                              " is also the id column");
  }
  if (auto it = t.find("features"); it != t.end()) {
    auto& f = it->second;
    r.expect(f, f.is_array(), context + " features",
             "an array of column names");
    if (f.as_array().empty())
      r.fail(&f, context + ": features = [] names no column; leave the key "
                           "out to use every column but the id and label");
    for (auto& x : f.as_array()) {
      auto col = r.text(x, context + " features");
      if (std::find(p.features.begin(), p.features.end(), col) !=
          p.features.end())
        r.fail(&x,
               context + ": feature " + in_quotes(col) + " is listed twice");
      if (col == p.id || col == p.label)
        r.fail(&x, context + ": feature " + in_quotes(col) + " is also its " +
                       (col == p.id ? "id" : "label") + " column");
      p.features.push_back(col);
    }
  }
  if (auto it = t.find("location"); it != t.end()) {
    p.location = r.text(it->second, context + " location");
    if (!p.is_local() && !parse_location(p.location, p.host, p.port))
      r.fail(&it->second, context + ": location " + in_quotes(p.location) +
                              " is neither \"local\" nor HOST:PORT with a port "
                              "from 1 to 65535 (IPv6: [ADDRESS]:PORT)");
  }
  // A party on a node loads what the node serves, by its name there.
  if (!p.is_local())
    for (auto key : {"data", "test"})
      if (auto it = t.find(key);
          it != t.end() &&
          !protocols::session::valid_name(it->second.as_string().str))
        r.fail(&it->second,
               context + " " + key + " " +
                   in_quotes(it->second.as_string().str) +
                   ": a party on a node names the dataset the node serves "
                   "(veil node --data NAME=PATH), not a file: letters, "
                   "digits, '_', '-' and '.'");
  return p;
}

/// The checks across parties. `at[i]` is party i's table.
void check_parties(const reader& r, const session_config& c,
                   const std::vector<const toml::value*>& at) {
  auto line = [&](std::size_t i) {
    return " (line " + std::to_string(at[i]->location().line()) + ")";
  };
  auto& ps = c.parties;
  for (std::size_t i = 0; i < ps.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (ps[i].name == ps[j].name)
        r.fail(at[i], "party name " + in_quotes(ps[i].name) +
                          " is used twice: by this party and by the one at"
                          " line " +
                          std::to_string(at[j]->location().line()));
  // One table's protocols (LDP boosting): the other parties hold rows of
  // the same columns, not columns of the same rows.
  if (const auto* info = find_protocol(c.protocol); info && info->one_table)
    return;
  // An id column and a test file: on every party or on none.
  auto all_or_none = [&](auto field, const std::string& what,
                         const std::string& advice) {
    for (std::size_t i = 0; i < ps.size(); ++i)
      for (std::size_t j = 0; j < ps.size(); ++j)
        if (ps[i].*field != "" && ps[j].*field == "")
          r.fail(at[j], "party " + in_quotes(ps[j].name) + " has no " + what +
                            ", but party " + in_quotes(ps[i].name) + line(i) +
                            " has " + in_quotes(ps[i].*field) + ": " + advice);
  };
  all_or_none(&party_config::id, "id column",
              "give every party an id column, or none to align rows by "
              "position");
  all_or_none(&party_config::test, "test file",
              "give every party its test file, or none");
  // A column is one party's: listing it twice is a copy-paste slip.
  for (std::size_t i = 0; i < ps.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      for (auto& f : ps[i].features)
        if (std::find(ps[j].features.begin(), ps[j].features.end(), f) !=
            ps[j].features.end())
          r.fail(at[i], "party " + in_quotes(ps[i].name) + " lists feature " +
                            in_quotes(f) + ", which party " +
                            in_quotes(ps[j].name) + line(j) + " lists too");
}

void read_tls(const reader& r, const toml::value& v, session_config& c) {
  r.table(v, "[tls]");
  r.only_keys(v, "[tls]", {"certificate", "key", "ca"});
  auto& t = v.as_table();
  std::vector<std::string> given, missing;
  std::pair<const char*, std::string*> files[] = {
      {"certificate", &c.tls.certificate},
      {"key", &c.tls.key},
      {"ca", &c.tls.ca}};
  for (auto [k, out] : files) {
    auto it = t.find(k);
    if (it == t.end()) {
      missing.push_back(k);
      continue;
    }
    given.push_back(k);
    *out = resolve(c.source, r.text(it->second, std::string("[tls] ") + k));
  }
  if (!missing.empty())
    r.fail(&v, "[tls] " +
                   (given.empty() ? "is empty"
                                  : "has " + join(given, " and ") +
                                        " but not " + join(missing, " or ")) +
                   ": TLS needs certificate, key and ca (or no [tls] table)");
}

/// The [net] table: the emulated links (apps/veil/settings.hpp).
void read_net(const reader& r, const toml::value& v, session_config& c) {
  r.table(v, "[net]");
  std::vector<std::string> keys;
  for (const auto& k : net_setting_keys())
    keys.push_back(k.substr(4)); // without "net."
  r.only_keys(v, "[net]", keys);
  for (auto& [k, x] : v.as_table()) {
    auto context = "[net] " + k;
    auto value = r.number(x, context);
    try {
      std::ostringstream text;
      text << std::setprecision(17) << value;
      apply_net_setting(c.link, "net." + k + "=" + text.str(), context);
      c.net_settings["net." + k] = text.str();
    } catch (const input_error& e) {
      r.fail(&x, e.what());
    }
  }
}

} // namespace

std::size_t session_config::active_party() const {
  for (std::size_t i = 0; i < parties.size(); ++i)
    if (!parties[i].label.empty())
      return i;
  throw input_error(where(source, nullptr) + "no party has a label");
}

std::chrono::milliseconds session_config::timeout() const {
  return checked_timeout(timeout_seconds, "timeout_seconds");
}

namespace {

/// The TOML file `path` (a `what`: "session file"), or input_error naming
/// the file and line.
toml::value parse_toml_file(const reader& r, const std::string& path,
                            const std::string& what) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (!fs::exists(status))
    r.fail(nullptr, what + " not found");
  if (fs::is_directory(status))
    r.fail(nullptr, "is a folder, not a " + what);

  toml::value root;
  try {
    root = toml::parse(path);
  } catch (const toml::exception& e) {
    // toml11 3.x: "[error] toml::parse_xxx: WHAT\n --> FILE\n   |\n 2 | ...".
    std::string msg = e.what();
    auto eol = msg.find('\n');
    auto first = msg.substr(0, eol);
    if (first.rfind("[error] ", 0) == 0)
      first = first.substr(8);
    if (first.rfind("toml::", 0) == 0 && first.find(": ") != std::string::npos)
      first = first.substr(first.find(": ") + 2);
    std::string rest;
    if (eol != std::string::npos) {
      rest = msg.substr(eol); // the quoted lines of the file
      if (rest.rfind("\n --> ", 0) == 0)
        rest = rest.substr(std::min(rest.size(), rest.find('\n', 1)));
    }
    throw input_error(path + ":" + std::to_string(e.location().line()) +
                      ": TOML syntax error: " + first + rest);
  } catch (const std::exception& e) {
    r.fail(nullptr, std::string("cannot be read: ") + e.what());
  }

  return root;
}

} // namespace

session_config load_session(const std::string& path) {
  session_config c;
  c.source = path;
  reader r{path};
  auto root = parse_toml_file(r, path, "session file");
  auto& t = root.as_table();
  std::vector<std::string> top = {
      "protocol", "timeout_seconds", "learner", "party", "tls", "net"};
  for (auto& [k, x] : in_file_order(root))
    if (std::find(top.begin(), top.end(), k) == top.end())
      r.fail(x, unknown(x->is_table()            ? "table"
                        : is_array_of_tables(*x) ? "array of tables"
                                                 : "key",
                        k, top));
  const toml::value* protocol_at = nullptr;
  if (auto it = t.find("protocol"); it != t.end()) {
    read_protocol(r, it->second, c);
    protocol_at = &it->second;
  }
  if (auto it = t.find("timeout_seconds"); it != t.end()) {
    c.timeout_seconds = r.number(it->second, "timeout_seconds");
    check_timeout(path, &it->second, "timeout_seconds", c.timeout_seconds);
  }
  if (auto it = t.find("learner"); it != t.end())
    read_learner(r, it->second, c);
  else
    c.params.num_class = 0;

  auto parties = t.find("party");
  if (parties == t.end())
    r.fail(nullptr, "no [[party]] table: a session needs its parties");
  auto& pv = parties->second;
  if (pv.is_table())
    r.fail(&pv, "party is a single table: write [[party]] (two brackets) "
                "for each party");
  r.expect(pv, pv.is_array(), "party", "an array of tables ([[party]])");
  std::vector<const toml::value*> at;
  for (auto& x : pv.as_array()) {
    c.parties.push_back(read_party(r, x, at.size()));
    at.push_back(&x);
  }
  if (c.parties.empty())
    r.fail(&pv, "party = [] lists no party");
  check_parties(r, c, at);
  check_protocol(c, protocol_at, "", at);

  for (auto& p : c.parties) {
    if (!p.is_local())
      continue; // a dataset name at its node
    p.data = resolve(path, p.data);
    if (!p.test.empty())
      p.test = resolve(path, p.test);
  }
  for (auto key : find_protocol(c.protocol)->file_parameters)
    if (auto it = c.protocol_params.find(std::string(key));
        it != c.protocol_params.end())
      it->second = resolve(path, it->second);
  if (auto it = t.find("tls"); it != t.end())
    read_tls(r, it->second, c);
  if (auto it = t.find("net"); it != t.end())
    read_net(r, it->second, c);
  return c;
}

void apply_override(session_config& c, const std::string& key_equals_value) {
  auto eq = key_equals_value.find('=');
  if (eq == std::string::npos || eq == 0)
    throw input_error("--set " + key_equals_value + ": expected KEY=VALUE");
  auto key = key_equals_value.substr(0, eq);
  auto value = key_equals_value.substr(eq + 1);
  auto context = "--set " + key_equals_value;
  if (key == "timeout" || key == "timeout_seconds") {
    double t = 0;
    auto [p, e] = std::from_chars(value.data(), value.data() + value.size(), t);
    if (e != std::errc{} || p != value.data() + value.size())
      throw input_error(context + ": " + in_quotes(value) +
                        " is not a number of seconds");
    check_timeout("", nullptr, context + ": timeout", t);
    c.timeout_seconds = t;
    return;
  }
  if (is_net_setting(key_equals_value)) {
    apply_net_setting(c.link, key_equals_value, context);
    c.net_settings[key] = value;
    return;
  }
  if (key == "protocol") {
    auto copy = c;
    copy.protocol = value;
    check_protocol(copy, nullptr, context);
    c.protocol = value;
    return;
  }
  if (auto info = find_protocol(c.protocol)) {
    if (info->takes(key)) {
      if (value.empty())
        throw input_error(context + ": the value is empty");
      c.protocol_params[key] = value; // checked where the protocol reads it
      c.protocol_param_lines.erase(key);
      return;
    }
  }
  auto keys = setting_keys();
  if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
    keys.insert(keys.end(), {"protocol", "timeout"});
    for (auto& k : net_setting_keys())
      keys.push_back(k);
    throw input_error(context + ": " + unknown("setting", key, keys));
  }
  auto p = c.params;
  apply_setting(p, key_equals_value);
  if (auto error = validation_error(p))
    throw input_error(context + ": " + *error);
  c.params = p;
  c.learner_keys[key] = key_equals_value.substr(key.size() + 1);
}

void check_local_files(const session_config& c) {
  auto check = [&](const std::string& who, const std::string& file) {
    std::string what = who + " file " + in_quotes(file);
    std::error_code ec;
    auto status = fs::status(file, ec);
    if (!fs::exists(status))
      fail(c.source, nullptr, what + " does not exist");
    if (fs::is_directory(status))
      fail(c.source, nullptr, what + " is a folder");
    std::ifstream in(file, std::ios::binary);
    if (!in)
      fail(c.source, nullptr,
           what + " cannot be read: " + std::strerror(errno));
    if (in.peek() == std::ifstream::traits_type::eof())
      fail(c.source, nullptr, what + " is empty");
  };
  for (auto& p : c.parties) {
    if (!p.is_local())
      continue;
    check("party " + in_quotes(p.name) + " data", p.data);
    if (!p.test.empty())
      check("party " + in_quotes(p.name) + " test", p.test);
  }
  if (c.tls.enabled()) {
    check("[tls] certificate", c.tls.certificate);
    check("[tls] key", c.tls.key);
    check("[tls] ca", c.tls.ca);
  }
}

actors::node_catalog load_node_file(const std::string& path) {
  reader r{path};
  auto root = parse_toml_file(r, path, "node file");
  r.only_keys(root, "the node file", {"store", "datasets"});
  actors::node_catalog c;
  auto& t = root.as_table();
  if (auto it = t.find("store"); it != t.end())
    c.store = resolve(path, r.text(it->second, "store"));
  auto ds = t.find("datasets");
  if (ds == t.end())
    r.fail(nullptr, "no [datasets.NAME] table: a node serves at least one "
                    "dataset");
  r.table(ds->second, "datasets");
  for (auto& [name, v] : in_file_order(ds->second)) {
    auto context = "dataset " + in_quotes(name);
    if (!protocols::session::valid_name(name))
      r.fail(v, context + ": a dataset name is made of letters, digits, "
                          "'_', '-' and '.'");
    r.table(*v, context);
    r.only_keys(*v, context, {"path", "columns", "id"});
    auto& d = v->as_table();
    actors::served_dataset served;
    auto at = d.find("path");
    if (at == d.end())
      r.fail(v, context + " has no path");
    served.path = resolve(path, r.text(at->second, context + " path"));
    if (auto it = d.find("columns"); it != d.end()) {
      r.expect(it->second, it->second.is_array(), context + " columns",
               "an array of column names");
      for (auto& x : it->second.as_array())
        served.columns.push_back(r.text(x, context + " columns"));
      if (served.columns.empty())
        r.fail(&it->second, context + ": columns = [] allows no column; "
                                      "leave the key out to allow them all");
    }
    if (auto it = d.find("id"); it != d.end()) {
      served.id = r.text(it->second, context + " id");
      if (std::find(served.columns.begin(), served.columns.end(), served.id) !=
          served.columns.end())
        r.fail(&it->second, context + ": id " + in_quotes(served.id) +
                                " is also in columns (an id is not a feature)");
    }
    c.datasets.emplace(name, std::move(served));
  }
  return c;
}

} // namespace veil::apps
