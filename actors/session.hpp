#pragma once

// What every protocol's session takes and gives (parties, runs, results,
// outcomes), and the plain protocol's configuration. CAF-free, so that
// apps/ compiles without CAF's headers; actors/live_session.hpp runs
// them, actors/party.hpp has plain's actor-level entry point (run on
// given parties).

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "learners/boost/booster.hpp"
#include "learners/boost/model.hpp"
#include "learners/boost/staged.hpp"
#include "protocols/plain/wire.hpp"
#include "protocols/session/wire.hpp"

namespace caf {
class actor;
class actor_system;
} // namespace caf

namespace veil::actors {

/// Ctrl-C from an interactive driver (`veil repl`): a session step waiting
/// in this process sees it within a tick (at most a second) and fails with
/// errc::interrupted, which ends the session on every party as any failure
/// does. request_interrupt() is safe in a signal handler.
void request_interrupt() noexcept;
bool interrupt_requested() noexcept;
void clear_interrupt() noexcept;

struct hosting;

/// One dataset a node serves (`veil node --data NAME=PATH`, or a
/// [datasets.NAME] table of its --config file).
struct served_dataset {
  std::string path;
  /// The columns a session may use as features or label; empty = all.
  std::vector<std::string> columns;
  /// The one column a session may join on (its values go to the
  /// coordinator). With `columns` or `id` set, no other column can be asked
  /// for as the id; with neither, any can.
  std::string id;

  bool restricted() const { return !columns.empty() || !id.empty(); }
};

/// What a node lets the parties it hosts touch.
struct node_catalog {
  std::map<std::string, served_dataset> datasets;
  /// The folder its parties keep their parts of trained models in; empty:
  /// it keeps none (a session that saves or restores parts is refused).
  std::string store;

  /// "a, b, c", or "none".
  std::string names() const;
};

/// A kind of party: the name a spawn request gives it (`veil node` hosts
/// the kinds its program lists) and what spawns one that loads its own
/// data, in this process or on a node. Each protocol names its own
/// (plain_party_kind(), feverless_party_kind(), opboost_party_kind()).
struct party_kind {
  const char* name;
  /// Spawns one called by the string, started as `hosting` says (in the
  /// coordinator's process, or by a node: actors/hosting.hpp).
  caf::actor (*spawn)(caf::actor_system&, std::string, const hosting&);
};

/// The plain protocol's parties.
party_kind plain_party_kind();

/// One party: its name (unique; also the suffix of its model file) and the
/// data it loads itself.
struct party_spec {
  std::string name;
  protocols::session::data_spec data;
  /// Test file with the same columns (id, features, label); empty = none.
  std::string test_path;
  /// Where the party runs: empty host = in this process; otherwise the
  /// address of a `veil node` that spawns it (it opens its files there).
  std::string host;
  std::uint16_t port = 0;

  bool is_remote() const { return !host.empty(); }
};

/// Certificates for TLS between nodes (all three PEM files, or none).
struct tls_files {
  std::string certificate;
  std::string key;
  std::string ca;

  bool enabled() const {
    return !certificate.empty() && !key.empty() && !ca.empty();
  }
};

/// Which rows the federated prediction and the metrics are on.
enum class evaluation {
  none,  ///< train only
  test,  ///< each party's test_path
  train, ///< the training rows
};

/// What every protocol's session over parties that load their own data
/// takes (each protocol's config derives from it and adds its settings).
struct parties_config {
  /// The parties, here or on their nodes; their order is the protocol's.
  std::vector<party_spec> parties;
  /// How long a working party may hear nothing from its peers (a load, one
  /// protocol round trip); a party with nothing to do waits for
  /// link.idle_seconds (default 30 timeouts).
  std::chrono::milliseconds timeout{60000};
  /// Emulated links between the parties (none by default), and the idle
  /// bound.
  protocols::session::link_model link;
  /// Non-empty: after training, each party keeps its part of the model
  /// where it runs, in protocols::session::part_path(parts.path, its name)
  /// (the coordinator's caller keeps the model file `parts.path` itself).
  protocols::session::model_parts parts;
  /// A prediction session: no training data and no training; the parties
  /// restore this model and their parts (from part_path(parts.path, their
  /// name), where they run) and predict their test files' rows.
  std::optional<learners::model> restore;
  /// Early stopping watched by the coordinator (see given_config); the
  /// test labels come from the parties' test files.
  int early_stopping_rounds = 0;
};

/// What every protocol's session of parties given their data at spawn
/// (all in this process: the one-table `veil train`, the tests) takes:
/// each party's data (the protocol's `Spec`, with its `name` and its
/// `eval` rows) and the session's settings. A protocol's given config
/// derives from it and adds its parameters.
template <class Spec>
struct given_config {
  std::vector<Spec> parties;
  /// How long a busy party may hear nothing from its peers.
  std::chrono::milliseconds timeout{60000};
  /// Emulated links between the parties (none by default).
  protocols::session::link_model link;
  /// The predicting party (party 0) predicts its eval rows after training.
  bool predict = true;
  /// Non-empty: after training, each party keeps its part where it runs.
  protocols::session::model_parts parts;
  /// Tests only: each party draws from a seeded_random derived from this
  /// and its index (the protocol's config says how). Unset (production):
  /// crypto::system_random.
  std::optional<std::uint64_t> test_seed;
  /// Early stopping watched by the coordinator, for protocols whose label
  /// holder is the coordinator (0: off): it evaluates every round on the
  /// eval rows, whose labels the caller gives here.
  int early_stopping_rounds = 0;
  std::vector<float> eval_labels;
};

/// How a session's driver runs it, whatever the protocol (each protocol's
/// run derives from it and adds its settings).
struct session_run {
  /// Party names, by index (the protocol's order; the names in errors and
  /// reports).
  std::vector<std::string> names;
  std::chrono::milliseconds timeout{60000};
  /// Emulated links between the parties, and the idle bound.
  protocols::session::link_model link;
  /// The predicting party predicts the evaluation rows after training,
  /// when there are any.
  bool predict = true;
  /// Non-empty: after training, each party keeps its part where it runs,
  /// in protocols::session::part_path(parts.path, its name).
  protocols::session::model_parts parts;
  /// A prediction session (with `load`): the parties load only the rows to
  /// predict and restore this model and their parts.
  std::optional<learners::model> restore;
  /// Non-empty: the parties load their data from these specs first (same
  /// order as the actors), and are aligned on the id column.
  std::vector<party_spec> load;
  /// Early stopping at the coordinator (0: off), and the eval rows' labels
  /// when the parties were given their data.
  int early_stopping_rounds = 0;
  std::vector<float> eval_labels;

  session_run() = default;
  /// The run of parties given their data: the predicting party (0)
  /// predicts when it has rows to predict.
  template <class Spec>
  explicit session_run(const given_config<Spec>& cfg)
      : timeout(cfg.timeout), link(cfg.link),
        predict(cfg.predict && !cfg.parties.empty() &&
                cfg.parties[0].eval.rows() > 0),
        parts(cfg.parts), early_stopping_rounds(cfg.early_stopping_rounds),
        eval_labels(cfg.eval_labels) {
    for (const auto& p : cfg.parties)
      names.push_back(p.name);
  }
  /// The run of parties that load their own data.
  explicit session_run(const parties_config& cfg)
      : timeout(cfg.timeout), link(cfg.link), parts(cfg.parts),
        restore(cfg.restore), load(cfg.parties),
        early_stopping_rounds(cfg.early_stopping_rounds) {
    for (const auto& p : cfg.parties)
      names.push_back(p.name);
  }
};

/// One party of a session's result: its name and what it sent and got.
struct party_result {
  std::string name;
  protocols::session::byte_stats bytes;
};

/// What every protocol's session result holds (a protocol's result derives
/// from it and adds its own, e.g. its privacy report).
template <class Party = party_result>
struct result_base {
  /// The model as the coordinator may see it (the protocol says what its
  /// splits hold).
  learners::model model;
  /// Rounds evaluated at the coordinator during training (early stopping),
  /// and what early stopping did; empty when the protocol did not.
  std::vector<learners::round_info> history;
  learners::early_stop_outcome early_stop;
  /// Every party's feature names, by index.
  std::vector<std::vector<std::string>> features;
  std::uint64_t rows = 0;
  std::uint64_t test_rows = 0; ///< rows predicted (predict only)
  /// The labels of the predicted rows, gathered from the parties that
  /// loaded their data (empty for data given at spawn: the caller has
  /// them).
  std::vector<float> labels;
  /// A prediction session's rows by id (party 0's order), with ids.
  std::vector<std::string> ids;
  /// By index: names, byte counts (and what else the protocol reports).
  std::vector<Party> parties;
  std::vector<double> margins; ///< of the predicted rows (predict only)
  /// Their margins after each round, when the session trained the model
  /// (learners::staged_margins; empty otherwise): the history's source.
  learners::staged_margins staged;
  double train_seconds = 0;
  double predict_seconds = 0;
  /// Predictions made so far (a live session may predict many times).
  std::uint32_t predictions = 0;
};

/// A session's result, or why it failed.
template <class Result>
struct outcome_of {
  std::optional<Result> result;
  protocols::session::errc code = protocols::session::errc::none;
  std::string error;

  bool ok() const { return result.has_value(); }
};

struct session_config : parties_config {
  /// parties: exactly one holds the label (the active party), which gets
  /// id 0; the others get ids 1, 2, ... in this order. The active party's
  /// progress may pause twice the timeout.
  learners::booster_params params;
  /// How the passive parties' features take part in split finding: plain
  /// histograms, or MaskedXGBoost's exchange under `masking`.
  protocols::plain::exchange exchange = protocols::plain::exchange::histograms;
  protocols::masked::params masking;
  evaluation eval = evaluation::test;
  /// Every party sends its split table (features and thresholds) to the
  /// coordinator after training (for --model-out). Off, the passive
  /// parties' splits never leave them: the result's split tables are
  /// empty.
  bool export_splits = false;
  // restore: the active party restores the model, every other party its
  // split table, and the active party predicts the test rows (eval test:
  // the test files; eval train: the data files).
};

using session_outcome = outcome_of<protocols::session::session_result>;

/// The plain protocol's plug into live_session (actors/live_session.hpp):
/// live_session<plain_protocol>::run(cfg, tls) runs a session whose
/// parties are in this process, or some on their `veil node`s.
struct plain_protocol {
  using party_config = session_config;
  using result = protocols::session::session_result;
  using outcome = session_outcome;
};

/// Called on the caller's thread as the active party reports progress.
using progress_fn =
    std::function<void(const protocols::session::progress_report&)>;

/// Checks `cfg` before any party is contacted: at least two parties,
/// unique names (letters, digits, '_', '-', '.'), a data file each, the
/// label on exactly one party, an id column on all parties or on none, a
/// test file each when eval is test, a positive timeout, valid booster
/// parameters. Throws veil::input_error naming the party and the field.
void validate(const session_config& cfg);

/// The config with the active party (the one with the label) first.
session_config active_first(const session_config& cfg);

/// Scheduler settings of an in-process session.
struct local_options {
  /// Scheduler threads; 0 = one per core.
  int threads = 0;
  /// CAF's work-sharing scheduler instead of work stealing: idle workers
  /// sleep instead of polling, which leaves the cores to the parties'
  /// OpenMP loops (Adult, 3 parties, 2 cores: 0.19 s instead of 0.22 s).
  bool sharing = true;
};

} // namespace veil::actors
