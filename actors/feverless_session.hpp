#pragma once

// A FEVERLESS session (protocols/feverless/client.hpp) in the actor
// runtime: one actor per client, every client a peer of every other, and a
// coordinator that exchanges the clients' identity keys, starts training,
// has client 0 predict, and collects the models, privacy reports and byte
// counts. CAF-free, like actors/session.hpp.
//
// [D] In-process only for now: the clients get their data at spawn time
// and the identity keys are exchanged through the coordinator in this
// process (no `veil node` spawning of FEVERLESS clients yet).

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "actors/session.hpp"
#include "learners/boost/model.hpp"
#include "learners/data/dataset.hpp"
#include "protocols/feverless/accountant.hpp"
#include "protocols/feverless/client.hpp"
#include "protocols/feverless/params.hpp"
#include "protocols/session/wire.hpp"

namespace veil::actors {

/// One FEVERLESS client: its columns, the labels it holds and its columns
/// of the rows to predict (none: no prediction).
struct feverless_client_spec {
  std::string name;
  learners::dataset features;
  protocols::feverless::label_set labels;
  learners::dataset eval;
};

struct feverless_config {
  protocols::feverless::params params;
  std::vector<feverless_client_spec> clients;
  /// How long a busy client may hear nothing from its peers.
  std::chrono::milliseconds timeout{60000};
  /// Client 0 predicts the eval rows after training.
  bool predict = true;
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
  /// The public model (identical on every client; client 0's).
  learners::model model;
  std::vector<feverless_client_result> clients;
  /// Client 0's privacy report (every client counts the same queries).
  protocols::feverless::privacy_report privacy;
  std::vector<double> margins; ///< of the eval rows (predict only)
  double train_seconds = 0;
  double predict_seconds = 0;
};

struct feverless_outcome {
  std::optional<feverless_result> result;
  protocols::session::errc code = protocols::session::errc::none;
  std::string error;

  bool ok() const { return result.has_value(); }
};

/// Runs a FEVERLESS (or plain / LDP / AHE baseline, by params.protocol)
/// session with every client in this process. Never throws for bad input:
/// it comes back as errc::bad_input. A client that refuses a message, ends
/// or stays silent beyond the timeout ends the session on every client; the
/// error names the client and the step.
feverless_outcome run_feverless_session(feverless_config cfg,
                                        const local_options& opts = {});

} // namespace veil::actors
