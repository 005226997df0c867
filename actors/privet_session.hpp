#pragma once

// A Privet session (protocols/privet/roles.hpp) in the actor runtime: one
// actor per computing party and one for the dealer, every party a peer of
// every other, and a coordinator that starts training (the dealer sends
// each party its seed, then answers the last party's asks for
// corrections; the parties exchange their rounds), has every computing
// party run SecInfer on its columns of the rows to predict with the
// scores opened to party 0 (the label holder), and collects the public
// structure, the label holder's scores and the byte counts (the dealer's
// apart: its actor's). CAF-free, like actors/session.hpp.
//
// One way in for now: every party given its data at spawn, in this
// process (`veil train --protocol privet --parties N`). Parties that load
// their own files and the dealer on a node wait on the runtime's parties
// without data (a party kind that loads nothing).

#include <cstdint>
#include <vector>

#include "actors/live_session.hpp"
#include "actors/session.hpp"
#include "protocols/privet/deal.hpp"
#include "protocols/privet/train.hpp"

namespace veil::actors {

/// Privet parties (a computing party, or the dealer when the roster makes
/// it the last).
party_kind privet_party_kind();

/// One Privet party given its data (protocols/privet/deal.hpp): the
/// computing parties first (party 0 with the labels), the dealer last.
using privet_party_spec = protocols::privet::party_data;

struct privet_config : given_config<privet_party_spec> {
  protocols::privet::params params;
  /// Who owns which feature (public; deal_table's).
  protocols::privet::column_map map;
  /// The dealer answers training's correlation requests before the online
  /// phase (found by a dry run of the program on rows of zeros, the
  /// paper's offline phase); false: each when the last party asks, a round
  /// trip on the online phase's critical path.
  bool dealer_ahead = true;
  // test_seed: the dealer's seeds and the parties' own sharing randomness
  // derive from it as mpc::local_network(parties, seed) derives them, so a
  // seeded session trains the in-process runtime's shares.
};

/// The model stays with the parties: each level's feature is public
/// (`tables`), its threshold with the feature's owner, the leaf values
/// secret-shared. `model` holds no trees.
struct privet_result : result_base<> {
  /// Each table's feature per level, as global feature indices
  /// (`features` of the computing parties, in party order, concatenated).
  std::vector<std::vector<std::int32_t>> tables;
  /// Online exchanges of training at party 0 (every party has the same).
  std::uint64_t rounds = 0;
  /// Of train_seconds, before the first round completed: the dealer's
  /// offline phase when it answers ahead.
  double offline_seconds = 0;
};

using privet_outcome = outcome_of<privet_result>;

/// Privet's plug into live_session (actors/live_session.hpp).
struct privet_protocol {
  using given_config = privet_config;
  using party_config = parties_config;
  using result = privet_result;
  using outcome = privet_outcome;
};

/// Runs it with every party given its data here (live_session<P>::run).
using privet_session = live_session<privet_protocol>;

} // namespace veil::actors
