#pragma once

// The session file of `veil train --config`: which parties take part, where
// they run, which columns each holds, the protocol and the learner's
// settings. Plain C++ (no CAF): the runtime turns a session_config into
// actors. The file format is documented in docs/session.md.

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "actors/session.hpp"
#include "learners/boost/booster.hpp"
#include "protocols/session/wire.hpp"

namespace veil::apps {

/// One party of a session: its data and where it runs.
struct party_config {
  /// Unique within the session; letters, digits, '_' and '-'.
  std::string name;
  /// Training data file. A relative path is resolved against the session
  /// file's folder and made absolute. A party on a node loads a dataset the
  /// node serves: this is its name there (veil node --data NAME=PATH).
  std::string data;
  /// Test data file with the same columns (optional; the same rules).
  std::string test;
  /// Id column to join the parties' rows on; empty = rows aligned by
  /// position. Either every party names one or none does.
  std::string id;
  /// Feature columns; empty = every column except the id and the label.
  std::vector<std::string> features;
  /// Label column; exactly one party of a session has one (with a
  /// protocol that spreads the labels, any number of parties, at least one).
  std::string label;
  /// "local" (spawned in this process) or "HOST:PORT" of a `veil node`.
  std::string location = "local";
  /// The parts of a remote location ("[::1]:4242" gives host "::1");
  /// empty and 0 when local.
  std::string host;
  std::uint16_t port = 0;

  bool is_local() const { return location == "local"; }
};

/// Splits "HOST:PORT" or "[IPV6]:PORT" (a session file's location); false
/// if it is neither.
bool parse_location(const std::string& s, std::string& host,
                    std::uint16_t& port);

/// Certificates for TLS between nodes: all three files, or none.
struct tls_config {
  std::string certificate; ///< this node's certificate (PEM)
  std::string key;         ///< its private key (PEM)
  std::string ca;          ///< the authority that signs every node
  bool enabled() const {
    return !certificate.empty() && !key.empty() && !ca.empty();
  }
};

/// What a protocol needs from a session.
struct protocol_info {
  std::string_view name;
  /// Needs at least 2 parties (every protocol except "centralized"),
  /// unless one_table.
  bool federated = true;
  bool one_table = false; ///< protocols::descriptor::one_table
  /// Keys its [protocol] table may hold besides `name` (a dotted key such
  /// as paillier.bits may also be written as a sub-table).
  std::vector<std::string_view> parameters;
  /// The labels may be spread over several parties (FEVERLESS): any number
  /// of parties, at least one, name a label column. Otherwise exactly one.
  bool spread_labels = false;
  /// Parameters named by a prefix and any non-empty rest: "opboost.bounds."
  /// takes opboost.bounds.COLUMN (in the file, also a [protocol.opboost.
  /// bounds] table of COLUMN = "LO:HI").
  std::vector<std::string_view> parameter_prefixes = {};
  /// Parameters whose value is a file: a relative path in the session file
  /// is resolved against its folder, as data paths are.
  std::vector<std::string_view> file_parameters = {};

  /// Whether `key` is one of its parameters.
  bool takes(const std::string& key) const;
};

/// Every protocol a session may name: the one place to add a protocol.
const std::vector<protocol_info>& known_protocols();

/// A whole session, as load_session reads it.
struct session_config {
  /// One of known_protocols().
  std::string protocol = "plain";
  /// The protocol's own parameters from the [protocol] table, as text
  /// (numbers in their shortest round-trip form, booleans as true/false).
  std::map<std::string, std::string> protocol_params;
  /// The line of each of them in the file (none for an override), for
  /// the messages of the protocol that reads them.
  std::map<std::string, int> protocol_param_lines;
  std::vector<party_config> parties;
  /// From the [learner] table, with the names of `veil train --set`.
  /// num_class is 0 unless set: infer it from the labels (as `veil train`).
  learners::booster_params params;
  /// The learner settings given explicitly, in [learner] or by an override
  /// (where a protocol's default differs from the learners', as FEVERLESS's
  /// max_delta_step with noise).
  /// Each as the text --set would take (what `veil repl` shows and
  /// writes back).
  std::map<std::string, std::string> learner_keys;
  /// The [net] table's settings, as net.KEY and their text.
  std::map<std::string, std::string> net_settings;
  /// How long a party may stay silent before the session fails.
  double timeout_seconds = 60;
  tls_config tls;
  /// The [net] table: emulated links between the parties.
  protocols::session::link_model link;
  /// The session file, as given to load_session, for messages.
  std::string source;

  /// Index in `parties` of the label holder.
  std::size_t active_party() const;
  /// timeout_seconds, rounded to milliseconds (at least 1).
  std::chrono::milliseconds timeout() const;
};

/// Parses a TOML session file. Throws veil::input_error naming the file, the
/// line (where there is one) and the key or party for: TOML syntax errors,
/// unknown keys or tables, wrong value types, a party without name or data,
/// duplicate party names, a bad name or location, no label or more than one,
/// (more than one only where the protocol spreads the labels),
/// an id column on some parties only, a test file on some parties only,
/// a feature listed twice, a learner setting that --set refuses or that is
/// out of range, an unknown protocol or protocol parameter, fewer than 2
/// parties for a federated protocol, a timeout outside (0, 86400] seconds,
/// and a [tls] table without all of certificate, key and ca. Does not touch
/// the data files: see check_local_files.
session_config load_session(const std::string& path);

/// A node file (`veil node --config`): `store = "FOLDER"` and one
/// [datasets.NAME] table per dataset it serves, with `path` and optionally
/// `columns` (the only features and label a session may use) and `id` (the
/// only column it may join on). Relative paths are
/// resolved against the file's folder. Throws input_error naming the file,
/// line and key.
actors::node_catalog load_node_file(const std::string& path);

/// Applies one command-line override after loading: any `--set` key
/// (apply_setting), `timeout` (or `timeout_seconds`) in seconds, a net.*
/// link setting (apply_net_setting),
/// `protocol`, or a parameter of the session's protocol (as in its
/// [protocol] table: `feverless.buckets=8`, `epsilon=1`). Checks the result as
/// load_session does; throws input_error.
void apply_override(session_config& c, const std::string& key_equals_value);

/// Checks that the data and test files of the local parties and the TLS
/// files exist and can be read; throws input_error naming the party (or
/// [tls] key) and the file. Remote parties' files live on their nodes and
/// are checked there.
void check_local_files(const session_config& c);

} // namespace veil::apps
