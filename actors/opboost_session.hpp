#pragma once

// An OpBoost session (protocols/opboost/{active,passive}_party.hpp) in the
// actor runtime: one actor per party, Party A (index 0, the labels) a peer
// of every Party B, and a coordinator that starts training, has Party A
// predict privately, and collects the model, the privacy report and the
// byte counts. CAF-free, like actors/session.hpp.
//
// Two ways in (opboost_session::run): every party given its data at spawn
// (one process), or each party loading its own files, in this process or
// on a `veil node` (actors/opboost_party.hpp has the party actor).

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

/// OpBoost parties that load their own data: Party A if the roster makes
/// it party 0, else a Party B, which maps its columns into D⊥ with the
/// roster's public bounds (its data's min and max for a column without).
party_kind opboost_party_kind();

/// One OpBoost party's data, given at spawn (protocols/opboost/deal.hpp).
using opboost_party_spec = protocols::opboost::party_data;

/// Party A first, then every Party B. predict: Party A predicts the eval
/// rows privately after training (every Party B desensitizes its columns
/// of them afresh, M4). test_seed: Party B q draws from
/// seeded_random(seed * 1000 + q).
struct opboost_config : given_config<opboost_party_spec> {
  protocols::opboost::params params;
};

/// The model's Party B thresholds are in desensitized-value (D⊥) units;
/// its features are Party A's, then each Party B's, in this order.
struct opboost_result : result_base<> {
  /// Party B columns mapped with their data's min and max (no public
  /// bounds given), by party then column (loading parties only).
  std::vector<std::string> fitted;
  std::uint64_t splits = 0; ///< Party B splits (thresholds asked for)
  /// Party A's privacy_report() and spent().
  std::string privacy_report;
  protocols::dp::accountant spent;
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
/// node`s; or every party given its data here. With test files, Party A
/// predicts the test rows privately and reports their labels for the
/// metrics. The rows are aligned on the id column (or by position) before
/// training.
using opboost_session = live_session<opboost_protocol>;

} // namespace veil::actors
