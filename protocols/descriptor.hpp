#pragma once

// What a protocol is, in one place (no CAF): its names, the kinds of party
// it has and how many of each, how they are connected, who holds the
// labels, and the table of its settings (key, type, default, range, one
// line of doc). The table is the single source of the keys `veil train
// --set` and a session file's [protocol] table accept, of their generic
// checks (type, range, choices), of `veil help PROTOCOL` and of the tables
// in docs/session.md (a test compares them). Adding a protocol adds its
// descriptor to the explicit list in protocols/descriptor.cpp.

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace veil::protocols {

/// The type of a setting's value.
enum class setting_type {
  number,  ///< a finite number, within `range` ("(0, inf)", "[0, 1]")
  integer, ///< an integer, within `range`
  boolean, ///< true or false
  choice,  ///< one of `choices`
  text,    ///< anything non-empty the protocol parses itself
  file,    ///< a path; relative to a session file's folder in one
};

/// One setting of a protocol.
struct setting {
  std::string key;
  setting_type type = setting_type::text;
  /// The default, as text ("2", "per_query", "none").
  std::string fallback;
  /// number, integer: the interval, each end open or closed (an infinite
  /// end is open).
  double min = -1.0 / 0.0;
  double max = 1.0 / 0.0;
  bool min_open = true;
  bool max_open = true;
  /// choice: the values it takes.
  std::vector<std::string> choices;
  /// text: the format, in words ("LO:HI").
  std::string format;
  /// One line.
  std::string doc;
  /// A key that names a family: "opboost.bounds." takes
  /// opboost.bounds.COLUMN for any non-empty COLUMN.
  bool prefix = false;
  /// The protocol's names it applies to; empty: every one (a baseline
  /// without noise takes no budget).
  std::vector<std::string> only = {};
  bool applies_to(std::string_view name) const;
  /// doc, and the names it applies to when not every one.
  std::string meaning() const;
};

/// Settings for the tables, by type. An interval's ends: closed unless
/// `*_open`; an infinite end is always open.
setting number_setting(std::string key, std::string fallback, double min,
                       double max, bool min_open, bool max_open,
                       std::string doc);
setting integer_setting(std::string key, std::string fallback, double min,
                        double max, std::string doc);
/// The first choice is the default.
setting choice_setting(std::string key, std::vector<std::string> choices,
                       std::string doc);
setting bool_setting(std::string key, bool fallback, std::string doc);
/// `format` says what it takes ("LO:HI"); `prefix`: see setting::prefix.
setting text_setting(std::string key, std::string fallback, std::string format,
                     std::string doc, bool prefix = false);
setting file_setting(std::string key, std::string doc);
/// `s` for these of its protocol's names only.
setting only_for(setting s, std::vector<std::string> names);

/// How the parties talk.
enum class topology {
  mesh, ///< every party with every other
  star, ///< one centre (active party, data user) with the others
};

/// A kind of party and how many a session has.
struct party_kind {
  std::string name;
  std::size_t min = 1;
  std::size_t max = 1; ///< 0: no upper bound
  std::string doc;
  /// What a party of this kind keeps of a trained model where it runs
  /// (`--model-out MODEL`: in MODEL.<party>); empty: nothing.
  std::string keeps = {};
};

struct descriptor {
  /// The names `--protocol` and a session's `name` take (the first is the
  /// protocol's own, the others its baselines or variants).
  std::vector<std::string> names;
  /// One line for `veil train --help`.
  std::string summary;
  /// Needs at least 2 parties (all but centralized).
  bool federated = true;
  std::vector<party_kind> parties;
  topology links = topology::mesh;
  /// Labels may be spread over several parties (each row's on exactly
  /// one); otherwise exactly one party holds them.
  bool spread_labels = false;
  /// Who holds the labels, in words.
  std::string labels;
  std::vector<setting> settings;
  /// Keys that were renamed: the old key and what to say instead.
  std::vector<std::pair<std::string, std::string>> renamed;
  /// Learner settings whose default differs here, in words.
  std::vector<std::string> learner_notes;
  /// What the coordinator's model file (`--model-out MODEL`) holds.
  std::string model_file = {};
  /// Whether its sessions write model files (`--model-out`); false: the
  /// model lives in its session only (model_file says why).
  bool writes_models = true;
  /// A session file may name one party only: its table is dealt out to
  /// the protocol's parties in this process (LDP boosting's owners).
  bool one_table = false;

  const std::string& name() const { return names.front(); }
  /// The setting `key` names (a prefix setting for any key it starts);
  /// null if none.
  const setting* find(std::string_view key) const;
  /// The setting `key` names if it applies to the variant `name`; null if
  /// none does.
  const setting* find_for(std::string_view name, std::string_view key) const;
};

/// The settings every federated session takes whatever its protocol (a
/// session file's top level and [net] table, `--set`): the timeout and
/// the emulated links. The single source of their ranges and help.
const std::vector<setting>& session_settings();

/// Every protocol, in the order `veil help` lists them.
const std::vector<const descriptor*>& all_protocols();

/// The protocol called `name` (any of its names); null if none.
const descriptor* find_protocol(std::string_view name);

/// The whole of `text` as a finite number; none if it is not one.
std::optional<double> parse_finite(std::string_view text);

/// Checks `value` against `s`'s type, range or choices; throws
/// veil::input_error "CONTEXT: expected ..." naming what it takes
/// (`context` names the key and the value: "--set feverless.buckets=1").
void check_setting(const setting& s, const std::string& value,
                   const std::string& context);

/// Checks a number against a number or integer setting's range; throws
/// veil::input_error "CONTEXT: expected ...".
void check_number(const setting& s, double x, const std::string& context);

/// The session setting called `key` (session_settings()); throws
/// std::logic_error if there is none.
const setting& session_setting(std::string_view key);

/// "number in (0, inf)", "true or false", "per_query or per_batch".
std::string describe_values(const setting& s);

/// The table of what a trained federated model leaves where (the
/// coordinator's MODEL, each party kind's MODEL.<party>), one row per
/// federated protocol, in Markdown (docs/session.md carries it).
std::string model_parts_markdown();

/// `veil help PROTOCOL`: the summary, the parties and the settings table.
std::string help_text(const descriptor& d);

/// The settings as a Markdown table (| key | default | values | meaning |),
/// as docs/session.md shows them.
std::string settings_markdown(const descriptor& d);

} // namespace veil::protocols
