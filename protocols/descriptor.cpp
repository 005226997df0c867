#include "protocols/descriptor.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>

#include "learners/input_error.hpp"
#include "protocols/feverless/descriptor.hpp"
#include "protocols/ldpboost/descriptor.hpp"
#include "protocols/masked/descriptor.hpp"
#include "protocols/opboost/descriptor.hpp"
#include "protocols/plain/descriptor.hpp"
#include "protocols/privet/descriptor.hpp"

namespace veil::protocols {

namespace {

/// Training on one party, in the clear: not a protocol between parties,
/// but a name --protocol takes.
const descriptor& centralized() {
  static const descriptor d{
      {"centralized"},
      "one party trains on all the data in the clear (the reference the "
      "federated protocols are compared with)",
      false,
      {{"party", 1, 1, "holds every column and the labels"}},
      topology::star,
      false,
      "the one party",
      {},
      {},
      {}};
  return d;
}

std::string number_text(double x) {
  if (std::isinf(x))
    return x > 0 ? "inf" : "-inf";
  std::ostringstream os;
  os << x;
  return os.str();
}

} // namespace

setting number_setting(std::string key, std::string fallback, double min,
                       double max, bool min_open, bool max_open,
                       std::string doc) {
  setting s;
  s.key = std::move(key);
  s.type = setting_type::number;
  s.fallback = std::move(fallback);
  s.min = min;
  s.max = max;
  s.min_open = min_open || std::isinf(min);
  s.max_open = max_open || std::isinf(max);
  s.doc = std::move(doc);
  return s;
}

setting integer_setting(std::string key, std::string fallback, double min,
                        double max, std::string doc) {
  auto s = number_setting(std::move(key), std::move(fallback), min, max, false,
                          false, std::move(doc));
  s.type = setting_type::integer;
  return s;
}

setting choice_setting(std::string key, std::vector<std::string> choices,
                       std::string doc) {
  setting s;
  s.key = std::move(key);
  s.type = setting_type::choice;
  s.fallback = choices.front();
  s.choices = std::move(choices);
  s.doc = std::move(doc);
  return s;
}

setting bool_setting(std::string key, bool fallback, std::string doc) {
  setting s;
  s.key = std::move(key);
  s.type = setting_type::boolean;
  s.fallback = fallback ? "true" : "false";
  s.doc = std::move(doc);
  return s;
}

setting text_setting(std::string key, std::string fallback, std::string format,
                     std::string doc, bool prefix) {
  setting s;
  s.key = std::move(key);
  s.type = setting_type::text;
  s.fallback = std::move(fallback);
  s.format = std::move(format);
  s.doc = std::move(doc);
  s.prefix = prefix;
  return s;
}

setting file_setting(std::string key, std::string doc) {
  setting s;
  s.key = std::move(key);
  s.type = setting_type::file;
  s.fallback = "none";
  s.doc = std::move(doc);
  return s;
}

const std::vector<const descriptor*>& all_protocols() {
  static const std::vector<const descriptor*> list = {
      &centralized(),         &plain::descriptor(),  &feverless::descriptor(),
      &opboost::descriptor(), &masked::descriptor(), &privet::descriptor(),
      &ldpboost::descriptor()};
  return list;
}

const descriptor* find_protocol(std::string_view name) {
  for (const auto* d : all_protocols())
    for (const auto& n : d->names)
      if (n == name)
        return d;
  return nullptr;
}

setting only_for(setting s, std::vector<std::string> names) {
  s.only = std::move(names);
  return s;
}

bool setting::applies_to(std::string_view name) const {
  return only.empty() ||
         std::find(only.begin(), only.end(), name) != only.end();
}

std::string setting::meaning() const {
  if (only.empty())
    return doc;
  std::string names;
  for (const auto& n : only)
    names += (names.empty() ? "" : ", ") + n;
  return doc + " (" + names + " only)";
}

const setting* descriptor::find_for(std::string_view name,
                                    std::string_view key) const {
  const auto* s = find(key);
  return s && s->applies_to(name) ? s : nullptr;
}

const setting* descriptor::find(std::string_view key) const {
  for (const auto& s : settings)
    if (s.prefix ? key.size() > s.key.size() && key.rfind(s.key, 0) == 0
                 : key == s.key)
      return &s;
  return nullptr;
}

std::string describe_values(const setting& s) {
  auto interval = [&] {
    return std::string(s.min_open ? "(" : "[") + number_text(s.min) + ", " +
           number_text(s.max) + (s.max_open ? ")" : "]");
  };
  switch (s.type) {
  case setting_type::number:
    return "a number in " + interval();
  case setting_type::integer:
    return "an integer in " + interval();
  case setting_type::boolean:
    return "true or false";
  case setting_type::choice: {
    std::string out;
    for (std::size_t i = 0; i < s.choices.size(); ++i)
      out += (i == 0                      ? ""
              : i + 1 == s.choices.size() ? " or "
                                          : ", ") +
             s.choices[i];
    return out;
  }
  case setting_type::file:
    return "a file";
  case setting_type::text:
    return s.format.empty() ? "text" : s.format;
  }
  return "";
}

void check_number(const setting& s, double x, const std::string& context) {
  if (!std::isfinite(x) ||
      (s.type == setting_type::integer && x != std::floor(x)) || x < s.min ||
      (s.min_open && x == s.min) || x > s.max || (s.max_open && x == s.max))
    throw input_error(context + ": expected " + describe_values(s));
}

const setting& session_setting(std::string_view key) {
  for (const auto& s : session_settings())
    if (s.key == key)
      return s;
  throw std::logic_error("no session setting " + std::string(key));
}

std::optional<double> parse_finite(std::string_view text) {
  double x = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec != std::errc{} || end != text.data() + text.size() ||
      !std::isfinite(x))
    return std::nullopt;
  return x;
}

void check_setting(const setting& s, const std::string& value,
                   const std::string& context) {
  auto fail = [&] {
    throw input_error(context + ": expected " + describe_values(s));
  };
  if (value.empty())
    throw input_error(context + ": the value is empty");
  switch (s.type) {
  case setting_type::number:
  case setting_type::integer: {
    auto x = parse_finite(value);
    if (!x)
      fail();
    check_number(s, *x, context);
    return;
  }
  case setting_type::boolean:
    if (value != "true" && value != "false")
      fail();
    return;
  case setting_type::choice:
    for (const auto& c : s.choices)
      if (value == c)
        return;
    fail();
    return;
  case setting_type::file:
  case setting_type::text:
    return;
  }
}

const std::vector<setting>& session_settings() {
  static const std::vector<setting> all = {
      number_setting("timeout", "60", 0, 86400, true, false,
                     "seconds a party may stay silent before the session "
                     "fails (a session file's timeout_seconds)"),
      number_setting("net.latency_ms", "0", 0, 60000, false, false,
                     "emulated links: one-way delay of every party-to-party "
                     "message, in milliseconds"),
      number_setting("net.bandwidth_mbps", "0", 0, 1e6, false, false,
                     "emulated links: megabits per second of each link "
                     "(0 = unlimited); a message waits for the earlier ones "
                     "on its link"),
      number_setting("net.idle_timeout", "0", 0, 7 * 86400, false, false,
                     "seconds a party with nothing to do (between a live "
                     "session's calls, or while another party works) waits "
                     "for a message before it leaves; 0 = 30 timeouts"),
  };
  return all;
}

std::string help_text(const descriptor& d) {
  std::ostringstream os;
  os << d.names.front() << ": " << d.summary << "\n";
  if (d.names.size() > 1) {
    os << "  also: ";
    for (std::size_t i = 1; i < d.names.size(); ++i)
      os << (i > 1 ? ", " : "") << d.names[i];
    os << "\n";
  }
  os << "\nparties:\n";
  for (const auto& k : d.parties) {
    os << "  " << k.name << " (";
    if (k.min == k.max)
      os << k.min;
    else if (k.max == 0)
      os << k.min << " or more";
    else
      os << k.min << " to " << k.max;
    os << "): " << k.doc << "\n";
    if (d.federated)
      os << "      keeps of a model it trained (MODEL.<party>, where it "
            "runs): "
         << (k.keeps.empty() ? "nothing" : k.keeps) << "\n";
  }
  if (!d.model_file.empty())
    os << "  the coordinator's model file (--model-out MODEL) holds "
       << d.model_file << "\n";
  os << "  linked "
     << (d.links == topology::mesh ? "each with each" : "as a star")
     << "; labels: " << d.labels << "\n";
  if (!d.settings.empty()) {
    os << "\nsettings (--set KEY=VALUE, or a session file's [protocol] "
          "table):\n";
    for (const auto& s : d.settings) {
      os << "  " << s.key << (s.prefix ? "COLUMN" : "") << " = "
         << describe_values(s) << " (default " << s.fallback << ")\n"
         << "      " << s.meaning() << "\n";
    }
  }
  for (const auto& [old, why] : d.renamed)
    os << "  " << old << ": " << why << "\n";
  if (d.federated) {
    os << "\nsession settings (every federated protocol; --set KEY=VALUE, "
          "or a session file's top level and [net] table):\n";
    for (const auto& s : session_settings())
      os << "  " << s.key << " = " << describe_values(s) << " (default "
         << s.fallback << ")\n"
         << "      " << s.doc << "\n";
  }
  if (!d.learner_notes.empty()) {
    os << "\nlearner settings (veil train --help):\n";
    for (const auto& n : d.learner_notes)
      os << "  " << n << "\n";
  }
  return os.str();
}

std::string model_parts_markdown() {
  std::ostringstream os;
  os << "| protocol | `MODEL` (coordinator) | `MODEL.<party>` (each party, "
        "where it runs) |\n|---|---|---|\n";
  for (const auto* d : all_protocols()) {
    if (!d->federated)
      continue;
    os << "| `" << d->name() << "` | " << d->model_file << " | ";
    for (std::size_t i = 0; i < d->parties.size(); ++i) {
      const auto& k = d->parties[i];
      os << (i ? "; " : "") << k.name << ": "
         << (k.keeps.empty() ? "nothing" : k.keeps);
    }
    os << " |\n";
  }
  return os.str();
}

std::string settings_markdown(const descriptor& d) {
  std::ostringstream os;
  os << "| setting | default | values | meaning |\n|---|---|---|---|\n";
  for (const auto& s : d.settings)
    os << "| `" << s.key << (s.prefix ? "COLUMN" : "") << "` | `" << s.fallback
       << "` | " << describe_values(s) << " | " << s.meaning() << " |\n";
  return os.str();
}

} // namespace veil::protocols
