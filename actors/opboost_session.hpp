#pragma once

// An OpBoost session (protocols/opboost/{active,passive}_party.hpp) in the
// actor runtime: one actor per party, Party A (index 0, the labels) a peer
// of every Party B, and a coordinator that starts training, has Party A
// predict privately, and collects the model, the privacy report and the
// byte counts. CAF-free, like actors/session.hpp.
//
// Two ways in: run_opboost_session gives every party its data at spawn
// (one process); run_opboost_parties has each party load its own files, in
// this process or on a `veil node` (actors/opboost_party.hpp has the party
// actor and the driver both use).

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "actors/live_session.hpp"
#include "actors/session.hpp"
#include "learners/boost/model.hpp"
#include "learners/data/dataset.hpp"
#include "protocols/dp/accountant.hpp"
#include "protocols/opboost/deal.hpp"
#include "protocols/opboost/params.hpp"
#include "protocols/opboost/preprocess.hpp"
#include "protocols/session/wire.hpp"

namespace veil::actors {

/// OpBoost parties (Party A or a Party B, as the roster says).
party_kind opboost_party_kind();

/// One OpBoost party's data, given at spawn (protocols/opboost/deal.hpp).
using opboost_party_spec = protocols::opboost::party_data;

struct opboost_config {
  protocols::opboost::params params;
  /// Party A first, then every Party B.
  std::vector<opboost_party_spec> parties;
  /// How long a busy party may hear nothing from its peers.
  std::chrono::milliseconds timeout{60000};
  /// Emulated links between the parties (none by default).
  protocols::session::link_model link;
  /// Party A predicts the eval rows privately after training: every Party B
  /// desensitizes its columns of them afresh (M4).
  bool predict = true;
  /// Non-empty: each Party B keeps its part (opboost_run::parts).
  protocols::session::model_parts parts;
  /// Tests only: Party B q draws from seeded_random(seed * 1000 + q).
  /// Unset (production): crypto::system_random.
  std::optional<std::uint64_t> test_seed;
};

struct opboost_party_result {
  std::string name;
  protocols::session::byte_stats bytes;
};

struct opboost_result {
  /// The model, Party B thresholds in desensitized-value (D⊥) units.
  learners::model model;
  /// Every party's feature names, by index (the model's features are
  /// Party A's, then each Party B's, in this order).
  std::vector<std::vector<std::string>> features;
  std::uint64_t rows = 0;
  std::uint64_t test_rows = 0; ///< rows predicted (predict only)
  /// The labels of the predicted rows, from Party A's test file (empty for
  /// data given at spawn: the caller has them).
  std::vector<float> labels;
  /// A prediction session's rows by id (Party A's order), with ids.
  std::vector<std::string> ids;
  /// Party B columns mapped with their data's min and max (no public
  /// bounds given), by party then column (loading parties only).
  std::vector<std::string> fitted;
  std::uint64_t splits = 0; ///< Party B splits (thresholds asked for)
  std::vector<opboost_party_result> parties;
  /// Party A's privacy_report() and spent().
  std::string privacy_report;
  protocols::dp::accountant spent;
  std::vector<double> margins; ///< of the eval rows (predict only)
  double train_seconds = 0;
  double predict_seconds = 0;
  /// Predictions made so far (a live session may predict many times).
  std::uint32_t predictions = 0;
};

using opboost_outcome = outcome_of<opboost_result>;

/// An OpBoost session whose parties load their own data: each party's
/// file, id, feature and (Party A, first) label columns, test file, and
/// where it runs; the public pre-processing bounds by column.
struct opboost_party_config : parties_config {
  protocols::opboost::params params;
  std::map<std::string, protocols::opboost::feature_map> bounds;
  /// A prediction session (with restore): every party's columns, Party A
  /// first (opboost_run::features).
  std::vector<std::vector<std::string>> features;
};

/// opboost's plug into live_session (actors/live_session.hpp): a long-lived
/// session over its parties, e.g. live_session<opboost_protocol>.
struct opboost_protocol {
  using given_config = opboost_config;
  using party_config = opboost_party_config;
  using result = opboost_result;
  using outcome = opboost_outcome;
};

/// Runs it: local parties in this process, remote ones on their `veil
/// node`s (over TLS when `tls` is enabled). With test files, Party A
/// predicts the test rows privately and reports their labels for the
/// metrics. The rows are aligned on the id column (or by position) before
/// training. Never hangs.
opboost_outcome run_opboost_parties(const opboost_party_config& cfg,
                                    const tls_files& tls,
                                    const local_options& opts = {},
                                    const progress_fn& on_progress = {});

/// Runs an OpBoost session with every party in this process. Never throws
/// for bad input: it comes back as errc::bad_input. A party that refuses a
/// message, ends or stays silent beyond the timeout ends the session; the
/// error names the party and the step.
opboost_outcome run_opboost_session(opboost_config cfg,
                                    const local_options& opts = {},
                                    const progress_fn& on_progress = {});

} // namespace veil::actors
