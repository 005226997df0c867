#pragma once

// The federated protocols `veil` runs: the one list a protocol joins at the
// application level (besides its descriptor in protocols/descriptor.cpp and
// its message types in messages/type_ids.hpp). `veil train`, `veil train
// --config`, `veil predict` and `veil node` find a protocol here; what each
// entry points at lives in the protocol's own command file
// (train_<p>.cpp).

#include <chrono>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "actors/session.hpp"
#include "apps/veil/commands.hpp"
#include "apps/veil/session_config.hpp"
#include "learners/metrics/metrics.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::apps {

/// Who predicts where in `veil predict`: the parties (in the model's order:
/// its splits name their owners by index), the session's timeout, links
/// and TLS files.
struct prediction_plan {
  std::vector<actors::party_spec> parties;
  std::size_t remote = 0;
  std::chrono::milliseconds timeout{60000};
  protocols::session::link_model link;
  actors::tls_files tls;
};

/// What a prediction session gave, whatever the protocol.
struct federated_prediction {
  std::vector<double> margins;
  std::vector<std::string> ids; ///< by row, when the parties have ids
  std::map<std::string, double> metrics;
  std::vector<std::string> names;
  std::vector<protocols::session::byte_stats> bytes;
  double seconds = 0;
  /// What the protocol says about the prediction's privacy, if anything.
  std::string privacy;
};

/// Prints what a prediction gave (rows, parties, `where`, metrics,
/// privacy) as veil predict does; returns the predictions' CSV.
std::string show_prediction(const federated_prediction& got,
                            const learners::model& model,
                            const std::string& where);

struct federated_protocol {
  /// Its descriptor's name (protocols::find_protocol finds every variant).
  const char* name;
  /// Its parties, as `veil node` hosts them.
  actors::party_kind (*kind)();
  /// `veil train --protocol P`: one table dealt to parties in this process.
  int (*train)(const train_options&);
  /// `veil train --config SESSION` with protocol P (the file loaded, its
  /// overrides applied, its local files checked).
  int (*train_config)(const session_config&, const train_options&);
  /// `veil predict` on a model of P: a prediction session per `plan`; 0,
  /// or the exit code after printing the failure.
  int (*predict)(const prediction_plan&, const predict_options&,
                 const protocols::session::federated_model&,
                 federated_prediction&);
};

/// Every federated protocol, in the order of protocols::all_protocols().
const std::vector<federated_protocol>& federated_protocols();

/// Their names, "plain, feverless, opboost", for messages.
std::string federated_protocol_names();

/// The federated protocol `name` names (any of its descriptor's names);
/// null for centralized training or an unknown name.
const federated_protocol* find_federated(const std::string& name);

/// The config of a prediction session of `plan` (any protocol's: its
/// parties, timeout and links), restoring `fm` and the parts saved beside
/// the model file `o.model`.
template <class Config>
Config prediction_config(const prediction_plan& plan, const predict_options& o,
                         const protocols::session::federated_model& fm) {
  Config cfg;
  cfg.parties = plan.parties;
  cfg.timeout = plan.timeout;
  cfg.link = plan.link;
  cfg.parts = {o.model, fm.model_id, {}};
  cfg.restore = fm.model;
  return cfg;
}

/// What a session file (its overrides applied) gives every protocol's
/// session: the parties in the file's order (session_file()).
struct file_session {
  const session_config* file = nullptr;
  std::vector<actors::party_spec> parties;
  std::size_t remote = 0; ///< how many run on other nodes
  bool have_test = true;  ///< every party has a test file
  actors::tls_files tls;
  protocols::session::model_parts parts; ///< for --model-out

  /// Where the parties run, for the outcome's line ("3 clients in this
  /// process", "3 parties, 2 on other nodes over TLS"); `kind` names them.
  std::string where(const std::string& kind) const;

  /// The config fields every protocol's session has: the parties, the
  /// timeout, the links and the parts.
  void fill(actors::parties_config& cfg) const {
    cfg.parties = parties;
    cfg.timeout = file->timeout();
    cfg.link = file->link;
    cfg.parts = parts;
  }

  /// Names the file in a failed outcome's error, unless it does already.
  template <class Outcome>
  void name_file(Outcome& out) const {
    if (!out.ok() && out.error.find(source()) == std::string::npos)
      out.error = source() + ": " + out.error;
  }

  const std::string& source() const;
};

/// What --plan knows of a session's shape before any party starts, read
/// here from the parties' local files: each party's features and the
/// rows of the party with the label.
struct planned_shape {
  /// Each party's feature names, in the session's order.
  std::vector<std::vector<std::string>> features;
  std::size_t rows = 0;
  /// Whether the rows are aligned by id: then the session keeps the rows
  /// every party has, which may be fewer (print_plan says so).
  bool by_id = false;
  /// "3 parties, 32561 rows" (and the alignment's caveat).
  std::string describe() const;
};

/// The shape of `parties`; throws input_error when a party whose columns or
/// rows it needs runs on a node (its files are there).
planned_shape plan_shape(const std::vector<actors::party_spec>& parties);

/// What a plain (vertical XGBoost) prediction session gave.
void plain_prediction(protocols::session::session_result& r,
                      const learners::model&, federated_prediction& got);

/// The session of the file `c` for `veil train --config` with `o`.
file_session session_file(const session_config& c, const train_options& o);

/// A failed session's exit code (2 for bad input, 1 otherwise), after
/// printing its error.
template <class Outcome>
int session_failure(const Outcome& out) {
  std::cerr << "veil: error: " << out.error << "\n";
  return out.code == protocols::session::errc::bad_input ? 2 : 1;
}

/// A prediction result whose labels the coordinator holds (FEVERLESS,
/// OpBoost; metrics only with labels) as what veil predict prints.
template <class Result, class Parties>
void take_prediction(Result& r, Parties& parties, bool labelled,
                     const learners::model& model, federated_prediction& got) {
  got.margins = std::move(r.margins);
  got.ids = std::move(r.ids);
  if (labelled) {
    auto obj = model.make_objective();
    got.metrics = learners::evaluate(
        obj, r.labels, obj.transform(got.margins, r.labels.size()));
  }
  for (auto& c : parties) {
    got.names.push_back(c.name);
    got.bytes.push_back(std::move(c.bytes));
  }
  got.seconds = r.predict_seconds;
}

} // namespace veil::apps
