#pragma once

// The session-level messages every protocol shares: loading and aligning
// each party's data, handing out the peer list, starting training and
// prediction, collecting models, split tables and byte counts. Plain
// structs, no CAF: messages/session.hpp binds them to the wire, actors/
// sends them. The protocol's own messages live in protocols/<p>/wire.hpp.

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "learners/boost/booster.hpp"
#include "learners/boost/model.hpp"

namespace veil::protocols::session {

/// Why a session failed. Crosses the actor boundary as a caf::error of
/// category "veil" whose context is one human-readable string.
enum class errc : std::uint8_t {
  none = 0,
  /// A party's data or the session's configuration is unusable: a missing
  /// file, an unknown column, labels on two parties, mismatched ids.
  bad_input = 1,
  /// A party ended (crashed, was killed, its node went away).
  party_down = 2,
  /// A party did not answer within the session's timeout.
  timeout = 3,
  /// A protocol role refused a message (malformed, out of order).
  protocol_error = 4,
  /// A message came from an actor that is not in the peer list.
  unknown_sender = 5,
  /// A session step was sent to a party that cannot serve it (e.g. train
  /// to a passive party, or a step out of order).
  bad_request = 6,
  /// The user interrupted the session (Ctrl-C in `veil repl`).
  interrupted = 7,
};

/// "bad_input", "party_down", ...
const char* to_string(errc code);

/// A session name: letters, digits, '_', '-' and '.', not "." or ".." (a
/// party's, or a dataset's a node serves; both may name files).
bool valid_name(const std::string& s);

/// Where one party's rows come from.
struct data_spec {
  /// CSV (optionally gzipped) or LibSVM file, read by the party itself.
  std::string path;
  /// Sample id column; empty = rows are aligned by position.
  std::string id_column;
  /// The feature columns, in this order; empty = all but id and label.
  std::vector<std::string> feature_columns;
  /// Label column; set on exactly one party (the active one).
  std::string label_column;
};

/// Coordinator -> party: load training (test = false) or test data.
/// With `same_as_train`, the test rows are a copy of the training rows
/// (metrics on the training data) and `data` is ignored.
struct load_request {
  bool test = false;
  bool same_as_train = false;
  data_spec data;
  /// A prediction session's rows may come without labels (then no
  /// metrics): a CSV file without the label column is read without labels.
  bool labels_optional = false;
};

/// Party -> coordinator: what it loaded. `ids` are public in the plain
/// join this runtime does (a private set intersection comes later).
struct data_summary {
  std::uint64_t rows = 0;
  std::vector<std::string> feature_names;
  bool has_labels = false;
  std::vector<std::string> ids;
  /// The rows whose label this party holds (a row whose label cell is
  /// empty is another party's, where labels may be spread).
  std::uint64_t labels = 0;
};

/// Coordinator -> party: reorder the rows so that row i of the session is
/// the party's row `rows[i]` (training or test data).
struct align_request {
  bool test = false;
  std::vector<std::uint32_t> rows;
};

/// The session's network settings (`net.*`): an emulated network between
/// every two parties (`net.latency_ms`, `net.bandwidth_mbps`: a message is
/// delivered latency + bytes/bandwidth after it is sent, queued behind the
/// earlier messages on the same link, one per ordered pair of parties; zero
/// latency and bandwidth: none), and how long an idle party waits.
struct link_model {
  double latency_ms = 0;
  /// Megabits per second; 0 = unlimited.
  double bandwidth_mbps = 0;
  /// `net.idle_timeout`: seconds a party with nothing to do (between a
  /// live session's calls, or answering another's work) waits for a
  /// message before it leaves; 0 = 30 timeouts.
  double idle_seconds = 0;

  bool enabled() const { return latency_ms > 0 || bandwidth_mbps > 0; }
};

/// Coordinator -> party: who is who, and the protocol's settings; one
/// message for every protocol. The peer handles travel beside it (index =
/// party id).
struct roster {
  std::int32_t self = 0;
  std::vector<std::string> names;
  /// How long a party may take to answer one protocol step.
  std::int64_t timeout_ms = 60000;
  link_model link;
  /// Who talks to whom: -1, every party to every other (a mesh); otherwise
  /// a star around this index, whose party talks to every other while the
  /// others talk to it only. A party watches the peers it talks to.
  std::int32_t hub = -1;
  /// The protocol's settings for its parties (its roster_settings struct,
  /// or the booster's for plain), packed by messages::pack; the role host
  /// unpacks them into the protocol's type and refuses a roster whose
  /// settings do not decode.
  std::vector<std::uint8_t> settings;
};

/// A party -> the coordinator, in a session that evaluates every round at
/// the coordinator (the labels are there): it finished tree `trees` and
/// waits for next_atom or (stop_atom, trees to keep).
struct round_done {
  std::int32_t trees = 0;
  /// Bytes this party has sent and received so far (for the progress).
  std::uint64_t bytes = 0;
};

/// The label holder's metrics of the validation rows after one round.
struct round_metrics {
  std::int32_t round = 0; ///< 1-based
  std::vector<std::string> names;
  std::vector<double> values;
};

/// Metrics as they travel: names and values side by side, and back (a
/// value without a name is dropped).
void put_metrics(const std::map<std::string, double>& metrics,
                 std::vector<std::string>& names, std::vector<double>& values);
std::map<std::string, double> metrics_of(const std::vector<std::string>& names,
                                         const std::vector<double>& values);

/// `history` as it travels, and back.
std::vector<round_metrics>
to_wire(const std::vector<learners::round_info>& history);
std::vector<learners::round_info>
from_wire(const std::vector<round_metrics>& history, int rounds);

/// A training party -> the coordinator, when its training ended; one
/// message for every protocol. The model as the coordinator may hold it
/// (the public model: structure and leaf values; the thresholds of the
/// splits other parties own stay with them; empty from a party whose
/// model another one reports), and the protocol's own account of the
/// training in `report`: a protocol struct packed by messages::pack
/// (FEVERLESS: the privacy report and, when exported, the split table;
/// OpBoost: the budget spent), empty if it has none.
struct trained {
  learners::model model;
  /// Wall time from the train request to the party's last tree.
  double seconds = 0;
  /// Of which its own preparation (binning its columns).
  double prepare_seconds = 0;
  /// The splits this party owns.
  std::uint64_t own_splits = 0;
  std::vector<std::uint8_t> report;
  /// Per-round evaluation, where the trained party evaluates (empty
  /// otherwise), and what early stopping did.
  std::vector<round_metrics> history;
  learners::early_stop_outcome early_stop;
};

/// The predicting party -> the coordinator; one message for every
/// protocol: margins (output-major, as model::predict_margin), the wall
/// time, and either the metrics it computed from its own labels (plain:
/// the labels stay with it) or the labels of the predicted rows when the
/// coordinator computes them (OpBoost's Party A, from its test file).
struct predicted {
  std::vector<double> margins;
  double seconds = 0;
  std::vector<std::string> metric_names;
  std::vector<double> metric_values;
  std::vector<float> labels;
  /// After the session's training, from a party that does not hold the
  /// labels: the rows' margins after each round (learners::staged_margins),
  /// for the coordinator's history. Empty otherwise.
  std::uint32_t staged_stride = 0;
  std::vector<float> staged;
};

/// One split a party holds: (tree, node) -> its feature, threshold and
/// default direction.
struct split_entry {
  std::int32_t tree = 0;
  std::int32_t node = 0;
  std::string feature;
  float threshold = 0;
  bool default_left = false;
};

/// A party's split table, for the model files.
struct split_export {
  std::string party;
  std::vector<split_entry> splits;
};

/// Where a session's parties keep their parts of a trained model: each
/// party p in part_path(path, p) where it runs (model_file.hpp), every part
/// carrying the model's id, fixed before training (new_model_id), so that
/// a part of another model is refused instead of answering for it.
struct model_parts {
  std::string path; ///< the coordinator's model file; empty: none kept
  std::string id;
  /// The parties on `veil node`s: they keep their parts in their node's
  /// store (actors/hosting.hpp), not at part_path.
  std::vector<std::string> on_nodes;

  bool empty() const { return path.empty(); }
};

/// Coordinator -> party: keep this party's part of the trained model where
/// the party runs (`save`: write it to `path`, a file on the party's own
/// machine), or read it back from there for a prediction session (the
/// party then answers predictions as after training). `model` is the
/// public model the coordinator holds, for the party that predicts (in a
/// restore; empty otherwise), and `features` every party's columns by
/// index, as the model file records them (a restore). The answer: how many
/// splits the part holds.
struct part_request {
  bool save = true;
  std::string path;
  /// The trained model's id (model_parts::id): saved in the part, and a
  /// restore refuses a part that carries another.
  std::string model_id;
  learners::model model;
  std::vector<std::vector<std::string>> features;
  /// Saving: the trees the trained model kept (-1: all). Early stopping
  /// drops the last rounds, whose splits a party then leaves out.
  std::int32_t trees = -1;
};

/// Payload bytes a party sent and received, per protocol message type;
/// per peer it sent to, the bytes and the turns (runs of messages sent
/// without one received from that peer in between: the link's rounds as
/// this party drives them); and the seconds it computed (handling session
/// steps and peers' messages).
struct byte_stats {
  std::string party;
  std::vector<std::string> types;
  std::vector<std::uint64_t> sent;
  std::vector<std::uint64_t> received;
  std::vector<std::int32_t> link_peers;
  std::vector<std::uint64_t> link_bytes;
  std::vector<std::uint64_t> link_turns;
  double busy_seconds = 0;

  std::uint64_t total_sent() const;
  std::uint64_t total_received() const;
};

/// Active party -> coordinator -> caller: how far the session got.
struct progress_report {
  std::string phase; ///< "train" or "predict"
  std::int32_t done = 0;
  std::int32_t total = 0;
  /// The last round's validation metrics, where the reporting party
  /// evaluates rounds (else empty).
  std::vector<std::string> metric_names;
  std::vector<double> metric_values;
  /// Bytes the reporting party has sent and received so far.
  std::uint64_t bytes = 0;
};

/// What a plain session produced: everything a report needs.
struct session_result {
  learners::model model;
  /// Party names by id (0 = active).
  std::vector<std::string> names;
  /// Feature columns of each party, by id.
  std::vector<std::vector<std::string>> features;
  /// Split tables by party id (the active party's own splits at 0).
  std::vector<split_export> splits;
  /// Byte counts by party id.
  std::vector<byte_stats> bytes;
  std::uint64_t rows = 0;
  std::uint64_t test_rows = 0;
  /// Empty when no prediction was asked for.
  std::string metrics_on;
  std::vector<double> margins;
  /// A prediction session's rows by id (party 0's order, the session's),
  /// when the parties have an id column.
  std::vector<std::string> ids;
  std::vector<std::string> metric_names;
  std::vector<double> metric_values;
  std::vector<round_metrics> history;
  learners::early_stop_outcome early_stop;
  /// The active party's own account of its training, packed (MaskedXGBoost
  /// and its LDP baselines: masked::applied); empty otherwise.
  std::vector<std::uint8_t> report;
  double load_seconds = 0;
  double train_seconds = 0;
  double bin_seconds = 0;
  double predict_seconds = 0;
  /// Predictions made so far (a live session may predict many times).
  std::uint32_t predictions = 0;
};

} // namespace veil::protocols::session
