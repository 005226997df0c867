#pragma once

// A FEVERLESS session (protocols/feverless/client.hpp) in the actor
// runtime: one actor per client, every client a peer of every other, and a
// coordinator that exchanges the clients' identity keys, starts training,
// has client 0 predict, and collects the models, privacy reports and byte
// counts. CAF-free, like actors/session.hpp.
//
// Two ways in (feverless_session::run): every client given its data at
// spawn (one process), or each client loading its own files, in this
// process or on a `veil node` (actors/feverless_client.hpp has the client
// actor). The identity keys are exchanged through the coordinator.

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

struct feverless_config : given_config<feverless_client_spec> {
  protocols::feverless::params params;
  /// Every client sends its split table with its model (feverless_run).
  bool export_splits = false;
  // test_seed: client c draws from seeded_random(seed * 1000 + c + 1) and
  // derives its identity from the seed.
};

/// A client of the result, with what it owns of the model: (tree, node) ->
/// its split (export_splits only).
struct feverless_client_result : party_result {
  protocols::feverless::split_table splits;
};

/// The public model's splits hold no feature and no threshold: those are
/// in `parties[c].splits`, features by index into `features[c]`.
struct feverless_result : result_base<feverless_client_result> {
  /// Whether any client holds labels of the evaluation rows (the rows of
  /// a prediction session may have none: then no metrics).
  bool labelled = true;
  /// Client 0's privacy report (every client counts the same queries).
  protocols::feverless::privacy_report privacy;
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
/// node`s; or every client given its data here. The training labels never
/// leave their clients; with test files, client 0 predicts the test rows
/// and the clients' test labels are gathered for the metrics. Checks
/// before training that the label counts add up to the row count (label
/// counts are public in FEVERLESS) and that the rows line up.
using feverless_session = live_session<feverless_protocol>;

} // namespace veil::actors
