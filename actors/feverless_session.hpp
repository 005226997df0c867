#pragma once

// A FEVERLESS session (protocols/feverless/client.hpp) in the actor
// runtime: one actor per client, every client a peer of every other, and a
// coordinator that exchanges the clients' identity keys, starts training,
// has client 0 predict, and collects the models, privacy reports and byte
// counts. CAF-free, like actors/session.hpp.
//
// Two ways in: run_feverless_session gives every client its data at spawn
// (one process); run_feverless_parties has each client load its own files,
// in this process or on a `veil node` (actors/feverless_client.hpp has the
// client actor and the driver both use). The identity keys are exchanged
// through the coordinator.

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actors/live_session.hpp"
#include "actors/session.hpp"
#include "learners/boost/model.hpp"
#include "learners/data/dataset.hpp"
#include "protocols/feverless/accountant.hpp"
#include "protocols/feverless/client.hpp"
#include "protocols/feverless/data.hpp"
#include "protocols/feverless/params.hpp"
#include "protocols/session/wire.hpp"

namespace veil::actors {

/// FEVERLESS clients (every variant: the session's params say which).
party_kind feverless_party_kind();

/// One FEVERLESS client given its data (protocols/feverless/data.hpp).
using feverless_client_spec = protocols::feverless::client_data;

struct feverless_config {
  protocols::feverless::params params;
  std::vector<feverless_client_spec> clients;
  /// How long a busy client may hear nothing from its peers.
  std::chrono::milliseconds timeout{60000};
  /// Emulated links between the parties (none by default).
  protocols::session::link_model link;
  /// Client 0 predicts the eval rows after training.
  bool predict = true;
  /// Every client sends its split table with its model (feverless_run).
  bool export_splits = false;
  /// Non-empty: each client keeps its split table (feverless_run::parts).
  protocols::session::model_parts parts;
  /// Tests only: client c draws from seeded_random(seed * 1000 + c + 1) and
  /// derives its identity from the seed. Unset (production): every client
  /// draws from crypto::system_random and generates a fresh identity.
  std::optional<std::uint64_t> test_seed;
};

/// What one client owns of the model: (tree, node) -> its split.
struct feverless_client_result {
  std::string name;
  protocols::feverless::split_table splits;
  protocols::session::byte_stats bytes;
};

struct feverless_result {
  /// The public model (identical on every client; client 0's). Its splits
  /// hold no feature and no threshold: those are in `clients[c].splits`.
  learners::model model;
  /// Every client's feature names, by index (its split tables' features
  /// are indices into them).
  std::vector<std::vector<std::string>> features;
  std::uint64_t rows = 0;
  std::uint64_t test_rows = 0;
  /// The labels of the evaluation rows, gathered from the clients that
  /// loaded their data (empty for data given at spawn: the caller has them).
  std::vector<float> labels;
  /// A prediction session's rows by id (client 0's order), with ids.
  std::vector<std::string> ids;
  /// Whether any client holds labels of the evaluation rows (the rows of
  /// a prediction session may have none: then no metrics).
  bool labelled = true;
  std::vector<feverless_client_result> clients;
  /// Client 0's privacy report (every client counts the same queries).
  protocols::feverless::privacy_report privacy;
  std::vector<double> margins; ///< of the eval rows (predict only)
  double train_seconds = 0;
  double predict_seconds = 0;
  /// Predictions made so far (a live session may predict many times).
  std::uint32_t predictions = 0;
};

using feverless_outcome = outcome_of<feverless_result>;

/// A FEVERLESS session whose clients load their own data: each party's
/// file, id, feature and label columns (a row whose label cell is empty is
/// another client's), test file, and where it runs.
struct feverless_party_config : parties_config {
  protocols::feverless::params params;
  /// Every client sends its split table with its model (feverless_run).
  bool export_splits = false;
};

/// feverless's plug into live_session (actors/live_session.hpp): a long-lived
/// session over its parties, e.g. live_session<feverless_protocol>.
struct feverless_protocol {
  using given_config = feverless_config;
  using party_config = feverless_party_config;
  using result = feverless_result;
  using outcome = feverless_outcome;
};

/// Runs it: local parties in this process, remote ones on their `veil
/// node`s (over TLS when `tls` is enabled). The training labels never leave
/// their clients; with test files, client 0 predicts the test rows and the
/// clients' test labels are gathered for the metrics. Checks before
/// training that the label counts add up to the row count (label counts
/// are public in FEVERLESS) and that the rows line up. Never hangs.
feverless_outcome run_feverless_parties(const feverless_party_config& cfg,
                                        const tls_files& tls,
                                        const local_options& opts = {},
                                        const progress_fn& on_progress = {});

/// Runs a FEVERLESS (or plain / LDP / AHE baseline, by params.protocol)
/// session with every client in this process. Never throws for bad input:
/// it comes back as errc::bad_input. A client that refuses a message, ends
/// or stays silent beyond the timeout ends the session on every client; the
/// error names the client and the step.
feverless_outcome run_feverless_session(feverless_config cfg,
                                        const local_options& opts = {},
                                        const progress_fn& on_progress = {});

} // namespace veil::actors
