#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "actors/session.hpp"
#include "learners/boost/booster.hpp"
#include "learners/boost/importance.hpp"
#include "learners/boost/model.hpp"
#include "learners/boost/model_io.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/data/dataset.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::apps {

/// A file a command reads or writes, and the flag that named it.
struct named_file {
  std::string flag;
  std::string path;
};

/// Before any work: refuses an output that is an input or another output
/// (paths compared after resolving symlinks), a folder, or one whose folder
/// is missing or not writable. Empty paths are skipped. Throws input_error
/// naming both flags.
void check_files(const std::vector<named_file>& inputs,
                 const std::vector<named_file>& outputs);

/// Options of `veil train`.
class kept_session;

struct train_options {
  std::string data; ///< training file; empty = built-in synthetic data
  std::string test; ///< test file for the reported metrics
  std::string label = "label";
  std::string id;
  std::string synthetic = "classification"; ///< built-in data kind
  std::size_t synthetic_rows = 20000;
  std::size_t synthetic_features = 20;
  std::string protocol = "centralized";
  std::string objective = "binary:logistic";
  std::string model_out;
  std::string report;
  std::uint64_t seed = 42;
  std::vector<std::string> settings;
  bool quiet = false;
  /// Parties of a federated protocol; 0 = the protocol's default (3 for
  /// plain, 1 for centralized).
  int parties = 0;
  /// Seconds a party may take to answer one step (federated protocols).
  double timeout = 60;
  /// FEVERLESS: the total (epsilon, delta) budget of the training; 0 = not
  /// given (the protocol's default, 2 and 1e-5).
  double epsilon = 0;
  double delta = 0;
  /// OpBoost: the columns Party A holds in plaintext (with the label).
  std::vector<std::string> categorical;
  learners::booster_params params;
  /// A session file (docs/session.md); then the parties, their data and
  /// locations come from it, and `overrides` (KEY=VALUE, applied in order
  /// with apply_override: the learner flags given, then --set) win over it.
  std::string config;
  std::vector<std::string> overrides;
  /// Flags that a session file replaces: set when given with --config.
  std::vector<std::string> conflicting;
  /// The emulated links (--set net.latency_ms, net.bandwidth_mbps; a
  /// session file's [net] table).
  protocols::session::link_model link;
  /// --tls-cert/--tls-key/--tls-ca: TLS to the parties on nodes of a
  /// session that is not a file (ldp-boost's ldp.owner_nodes); a session
  /// file has its [tls] table.
  actors::tls_files tls;
  /// --plan: check the settings and the data, print the privacy guarantee
  /// the session would give (what it fixes before training) and stop
  /// before any party starts.
  bool plan = false;
  /// When set, a session file's session keeps its parties after training
  /// (the REPL's), for predictions through them (kept_session.hpp).
  std::unique_ptr<kept_session>* keep = nullptr;
};

int run_train(train_options opts);

/// --plan's output: "plan: PROTOCOL, WHAT; privacy (fixed before
/// training): GUARANTEE"; returns 0. `what` says the shape it is for
/// ("3 parties, 32561 rows").
int print_plan(const std::string& protocol, const std::string& what,
               const std::string& guarantee);

/// The rows of a local table (a CSV or LibSVM file), read as a party
/// reads it: its label and id columns, no features.
std::size_t table_rows(const std::string& path, const std::string& label,
                       const std::string& id);

struct session_config;

/// How a vertical XGBoost session's passive parties take part: plain
/// histograms, or MaskedXGBoost's exchange under `masking`.
struct vertical_exchange {
  protocols::plain::exchange kind = protocols::plain::exchange::histograms;
  protocols::masked::params masking;
  /// The protocol's name (plain, masked-xgboost, xgboost-ldp,
  /// fedxgboost-ldp).
  std::string name() const;
};

/// `veil train` of the vertical XGBoost protocols (plain, masked-xgboost):
/// one table's columns dealt out to --parties parties in this process
/// (MaskedXGBoost: the active party the first half), booster `p`.
int run_vertical_train(const train_options& o, learners::booster_params p,
                       const vertical_exchange& ex);

/// `veil train --config` of the vertical XGBoost protocols.
int run_vertical_config(const session_config& c, const train_options& o,
                        learners::booster_params p,
                        const vertical_exchange& ex);

/// --plan of a vertical XGBoost session: its guarantee at the parties'
/// shape (plan_shape).
int plan_vertical(const actors::session_config& cfg);

/// `veil train --config SESSION.toml`: runs the session of the file, with
/// the local parties in this process and the remote ones on their nodes.
int run_config_train(const train_options& opts);

/// Prints a federated session's outcome and writes --model-out and
/// --report; returns the exit code (2 for bad input, 1 for other failures).
/// `where` says where the parties ran ("3 parties in this process").
int report_federated(const actors::session_outcome& out,
                     const actors::session_config& cfg, const train_options& o,
                     const std::string& data_name, bool have_test,
                     const std::string& where);

/// Where a session's parties keep their parts for --model-out `model_out`
/// (none without it), under a fresh model id.
protocols::session::model_parts parts_for(const std::string& model_out);

/// Stages --model-out's file in `outputs` (written with the report once
/// the run succeeded): `fm` (the public model, the protocol, the
/// parties and their columns, the label and id columns), its note saying it
/// holds `own` besides the structure, and the model id of `parts`; prints
/// that `holders` keep their parts (`what`) where they run and how to
/// predict. Returns the report's model_parts object (party -> part file).
nlohmann::json save_session_model(const train_options& o,
                                  protocols::session::federated_model fm,
                                  const protocols::session::model_parts& parts,
                                  const std::string& own,
                                  const std::vector<std::string>& holders,
                                  const std::string& what,
                                  std::vector<learners::output_file>& outputs);

struct session_config;

/// The parties of a session file as the runtime takes them; `remote`: how
/// many run on other nodes; `have_test`: whether every party has a test
/// file.
std::vector<actors::party_spec>
party_specs(const session_config& c, std::size_t& remote, bool& have_test);

/// Options of `veil node`.
struct node_command_options {
  std::string listen;
  bool once = false;
  /// Listen beyond this machine without TLS (anyone who reaches the port
  /// could drive the node): refused unless given.
  bool insecure = false;
  std::string tls_cert, tls_key, tls_ca;
  int threads = 0;
  /// NAME=PATH, one per dataset it serves.
  std::vector<std::string> data;
  std::string store;
  /// A node file (TOML): datasets with allowed columns, store.
  std::string config;
  /// Coordinator certificates accepted (fingerprints, CN=...).
  std::vector<std::string> allow;
  int max_message_mb = 256;
  int max_connections = 64;
  double handshake_seconds = 10;
};

int run_node(const node_command_options& opts);

/// The built-in demo data: synthetic, split 80/20 into train and test.
std::pair<learners::dataset, learners::dataset>
builtin_data(const train_options& o, learners::objective_kind kind);

/// The training and test rows of `veil train`: --data (and --test) or the
/// built-in synthetic data, with the name the report gives them.
struct train_data {
  learners::dataset train, test;
  std::string name;
  bool have_test = true;
};

train_data load_train_data(const train_options& o,
                           learners::objective_kind kind);

/// The columns `cols` of `d`, with its labels if `labels`.
learners::dataset select_columns(const learners::dataset& d,
                                 const std::vector<std::size_t>& cols,
                                 bool labels);

/// The value of `--set key=v` as a finite number.
double parse_number(const std::string& key, const std::string& v);

/// A privacy budget the user gave (`what` names the flag or key): epsilon
/// must be positive and finite, delta in (0, 1). Returns it or throws
/// input_error: a budget of 0, a negative one or NaN must never fall back to
/// a default silently.
/// `veil help [PROTOCOL] [--markdown]`: the protocols, or one protocol's
/// parties and settings (protocols/descriptor.hpp); `markdown`: its
/// settings as the table of docs/session.md.
int run_help(const std::string& protocol, bool markdown);

double checked_epsilon(const std::string& what, double epsilon);
double checked_delta(const std::string& what, double delta);

/// The report's "history": per round, its test (validation) metrics and,
/// with eval_train, its training metrics; rounds without either are left
/// out.
nlohmann::json history_json(const std::vector<learners::round_info>& history);

/// The report's "early_stopping": whether it was on, its metric, where it
/// stopped and the best round.
nlohmann::json early_stopping_json(const learners::early_stop_outcome& e);

/// The report's "importance": feature -> weight, gain, cover, total_gain,
/// total_cover (XGBoost's get_score types).
nlohmann::json
importance_json(const std::vector<learners::feature_importance>& fs);

/// `m` with its features named by the parties' columns (`features`, by
/// party in the model's global order), when their count matches.
learners::model
with_column_names(learners::model m,
                  const std::vector<std::vector<std::string>>& features);

/// "auc 0.91  logloss 0.3".
std::string format_metrics(const std::map<std::string, double>& m);

/// The report's "params": the booster settings and the model's base margin.
nlohmann::json booster_params_json(const learners::booster_params& p,
                                   const learners::model& m);

/// The report's "network" section: the emulated link (none: {"emulated":
/// false}), the wall time of training and prediction under it (`seconds`),
/// and the parties' computing time in both (busy_seconds) apart;
/// network_line() is its line of text, empty when no link is emulated.
nlohmann::json
network_json(const protocols::session::link_model& link,
             const std::vector<protocols::session::byte_stats>& parties,
             double seconds);
std::string
network_line(const protocols::session::link_model& link,
             const std::vector<protocols::session::byte_stats>& parties,
             double seconds);

/// One party's byte counts for the report: sent, received and by message
/// type (the sum of both directions, or each apart if `by_direction`); per
/// peer (named by `names`, the session's party names by index) the bytes
/// sent and the turns; the seconds it computed.
nlohmann::json party_bytes_json(const protocols::session::byte_stats& b,
                                bool by_direction,
                                const std::vector<std::string>& names);

/// What every federated session's report says, whatever its protocol.
struct federated_summary {
  std::string protocol;
  std::string data;
  std::string objective;
  std::uint64_t rows = 0;
  std::uint64_t test_rows = 0; ///< 0 unless the metrics are on test rows
  /// By party: its name, its columns and its byte counts.
  std::vector<std::string> names;
  std::vector<std::vector<std::string>> features;
  std::vector<protocols::session::byte_stats> bytes;
  /// Bytes by message type for each direction apart (else their sum).
  bool bytes_by_direction = true;
  std::size_t trees = 0;
  std::size_t rounds = 0; ///< trees per output
  std::map<std::string, double> metrics;
  std::string metrics_on; ///< "test", "train", or empty: none
  double train_seconds = 0;
  double predict_seconds = 0;
  nlohmann::json params = nlohmann::json::object();
  nlohmann::json privacy = nlohmann::json::object();
  /// Per-round test metrics where the label holder evaluates rounds, and
  /// what early stopping did.
  std::vector<learners::round_info> history;
  learners::early_stop_outcome early_stop;
  /// Feature importance the coordinator may know, and who knows what.
  nlohmann::json importance = nlohmann::json::object();
  std::string importance_note;
  /// Party -> its part file (save_session_model), and whose split tables
  /// reached this process.
  nlohmann::json model_parts = nlohmann::json::object();
  nlohmann::json split_tables_exported = nlohmann::json::array();

  /// The bytes every party sent, in all.
  std::uint64_t total_bytes() const;
  /// Columns in all.
  std::size_t total_features() const;
};

/// The facts of a session result `r` whose parties (`parties`: each with
/// a name and byte counts) are listed apart from its columns.
template <class Result, class Parties>
federated_summary summary_of(const Result& r, const Parties& parties) {
  federated_summary s;
  s.rows = r.rows;
  for (const auto& q : parties) {
    s.names.push_back(q.name);
    s.bytes.push_back(q.bytes);
  }
  s.features = r.features;
  s.trees = r.model.trees.size();
  s.rounds = r.model.rounds();
  s.train_seconds = r.train_seconds;
  s.predict_seconds = r.predict_seconds;
  return s;
}

/// The --report keys every federated protocol writes (the protocol adds
/// its own): version, protocol, data, rows, parties and their columns,
/// trees, params, metrics, times, bytes per party, network, the model's
/// parts and privacy.
nlohmann::json federated_report(const federated_summary& s,
                                const train_options& o);

using learners::csv_header;
using learners::is_libsvm_path;

/// What a federated model file of `protocol` holds (`own`: what the
/// coordinator's file has besides the structure) and how to predict with
/// it; load_model refuses such a file with this text.
std::string federated_note(const std::string& protocol, const std::string& own);

struct predict_options {
  std::string model;
  /// A federated model: the session file whose parties predict (else
  /// they run in this process, each reading its columns of `data`).
  std::string config;
  /// --set KEY=VALUE: predict_on=test|data, and the session's overrides.
  std::vector<std::string> overrides;
  std::string report;
  std::string data;
  std::string label; ///< when given, metrics are printed
  std::string id;
  std::string out;
  int threads = 1;
};

int run_predict(const predict_options& opts);

/// Predictions as CSV, one row per prediction (`preds` output-major, `k`
/// outputs: "prediction", or p0..p(k-1)), each row's id first when `ids`
/// has one per row.
std::string predictions_csv(const std::vector<double>& preds, std::size_t k,
                            const std::vector<std::string>& ids);

/// `veil predict` on a federated model: a prediction session over the
/// parties that hold its parts.
/// `model`: the model file's JSON, read once by run_predict.
int run_federated_predict(const predict_options& opts,
                          const nlohmann::json& model);

struct export_options {
  std::string model;
  std::string format = "xgboost";
  std::string out;
};

int run_export(const export_options& opts);

/// Options of `veil inspect`.
struct inspect_options {
  std::string model;
  /// Parts of a federated model kept where this runs (a party's split
  /// table): their features' importance and splits are shown too.
  std::vector<std::string> parts;
  /// Trees to print: a count or "all".
  std::string trees = "1";
};

int run_inspect(const inspect_options& opts);

/// Options of `veil audit`: a protocol, its settings, an attack.
struct audit_options {
  std::string protocol = "masked-xgboost";
  std::string data;
  std::string label = "label";
  double epsilon = 0; ///< 0: the protocol's default
  double delta = 0;
  std::vector<std::string> settings;
  std::string attack = "all"; ///< least-squares, nn, subset or all
  int trials = 1000;          ///< subset attack's sub-problems
  std::uint64_t seed = 1;     ///< subset's rows and cuts, nn's fabricated data
  int threads = 1;
  std::string report;
};

int run_audit(const audit_options& opts);

struct generate_options {
  std::string kind = "classification";
  std::size_t rows = 10000;
  std::size_t features = 20;
  std::size_t informative = 10;
  std::size_t redundant = 10;
  int classes = 2;
  double noise = 0.1;
  std::uint64_t seed = 42;
  double test_fraction = 0;
  std::string out;
  /// --kind bovw (LDP boosting's image features, spec ldp-boosting §7.1-7.2):
  /// the CSVs of 28x28 images (pixels 0..255, then label) pooled, the two
  /// classes kept ("A,B": A becomes 0, B 1), the vocabulary's size, and
  /// the training images per class after augmentation.
  std::vector<std::string> images;
  std::string pair = "0,6";
  int words = 100;
  std::size_t per_class = 20000;
};

int run_generate(const generate_options& opts);

/// `veil compare`: protocols × budgets × repetitions on one split.
struct compare_options {
  std::string data; ///< the table (CSV or LibSVM)
  std::string test; ///< test rows; empty = a seeded split of `data`
  std::string label = "label";
  double test_fraction = 0.2;
  std::vector<std::string> protocols;
  std::vector<double> epsilons;
  int repeats = 3;
  std::uint64_t seed = 42;
  std::string objective = "binary:logistic";
  learners::booster_params params;
  /// KEY=VALUE given to every run (a protocol refuses another's keys).
  std::vector<std::string> settings;
  double timeout = 60;
  std::string out = "compare";
  bool quiet = false;
  /// A protocol's session file (veil repl's parties, its test files):
  /// that protocol's runs are `veil train --config FILE` with the budget
  /// and `settings` as overrides, instead of runs on `data`.
  std::map<std::string, std::string> sessions;
  /// Says how the sessions' parties hold the data (compare.md).
  std::string sessions_note;
};

/// The guarantee a `veil train` report states, in one line, whatever the
/// protocol (its privacy headline, statement or note).
std::string report_guarantee(const std::string& report_path);

/// `veil repl`: interactive, or a script (-f FILE, or standard input that
/// is not a terminal: each command echoed, the first error ends it).
struct repl_options {
  std::string file;
};

int run_repl(const repl_options& opts);

/// Runs the grid, writes out/compare.md, compare.csv, summary.csv and the
/// plots (gnuplot), prints the table; 1 if a run failed.
int run_compare(compare_options opts);
/// `path` with `part` before its extension ("d.csv.gz", "_train":
/// "d_train.csv.gz").
std::string with_suffix(const std::string& path, const std::string& part);
/// --kind bovw: writes OUT's _train (augmented), _test and _user (1,000
/// originals per class each) feature CSVs.
int run_generate_bovw(const generate_options& opts);

} // namespace veil::apps
