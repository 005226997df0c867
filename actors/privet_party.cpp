// The Privet party actor (hosting protocols/privet/roles.hpp's computing
// party or dealer, I/O-free roles) and the driver of a Privet session over
// party actors. Every party is a peer of every other (a mesh): the
// computing parties exchange one round_words message per peer and round,
// the dealer sends each its seed and answers the last party's asks.
//
// The session steps, coordinator -> party (each a request unless noted):
//   (peers_atom, session::roster [pvt::roster_settings], peers) -> ok_atom
//   (train_atom)   to every party; the dealer sends the seeds. Then party 0
//                  -> coordinator: session::trained (pvt::training_report)
//   (predict_atom) to every computing party: SecInfer on its columns of
//                  the rows to predict, the scores opened to party 0; then
//                  party 0 -> coordinator: session::predicted
//   (stats_atom) -> session::byte_stats
// A party monitors its peers and the coordinator; a refused message, a
// peer that ends or a silence longer than the roster's timeout ends it
// with a "veil" error that names the party and the step, and the driver
// ends the others.

#include <memory>
#include <stdexcept>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/errors.hpp"
#include "actors/live_session_impl.hpp"
#include "actors/privet_party.hpp"
#include "actors/role_host.hpp"
#include "actors/support.hpp"
#include "learners/input_error.hpp"
#include "messages/privet.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/privet/roles.hpp"

namespace veil::actors {

namespace {

namespace pv = protocols::privet;
namespace session = protocols::session;
namespace pvt = messages::pvt;
using session::errc;

struct party_state : data_party_state<privet_party_spec> {
  static inline const char* name = "veil.privet_party";

  std::unique_ptr<pv::computing_party> party; // index < computing
  std::unique_ptr<pv::dealer_role> dealer;    // index == computing
  learners::dataset eval; ///< its columns of the rows to predict
  /// The dealer: what its dry run needs (the roster's settings).
  std::optional<pvt::roster_settings> dry_run;
  /// Party 0: when its first round completed (the online phase began).
  std::optional<clock_type::time_point> online_since;

  bool has_role() const { return party || dealer; }
};

using party_actor = caf::stateful_actor<party_state>;

void abort(party_actor* self, errc code, std::string message) {
  self->quit(session_error(code, std::move(message)));
}

/// Test-seeded randomness (0: the operating system's), as
/// mpc::local_network(parties, seed) draws it: the dealer's seeds from the
/// session's seed, each party's own sharing from seed + 17 (and its index,
/// mixed in by mpc::party), so that a seeded session trains the shares of
/// the in-process runtime.
std::uint64_t seed_of(const party_state& st, bool dealer) {
  if (!st.test_seed)
    return 0;
  return dealer ? *st.test_seed : *st.test_seed + 17;
}

/// The roster's column map, checked against the number of computing
/// parties and this party's columns; throws input_error (bad input).
pv::column_map map_of(const pvt::roster_settings& r, std::int32_t me,
                      std::size_t own_columns) {
  if (r.owner.size() != r.local.size())
    throw input_error("the roster's column map is malformed");
  pv::column_map m;
  std::size_t mine = 0;
  for (std::size_t j = 0; j < r.owner.size(); ++j) {
    if (r.owner[j] < 0 || r.owner[j] >= r.computing)
      throw input_error("the roster gives feature " + std::to_string(j) +
                        " to party " + std::to_string(r.owner[j]) +
                        ", which is not a computing party");
    m.owner.push_back(r.owner[j]);
    m.local.push_back(static_cast<std::size_t>(r.local[j]));
    if (r.owner[j] == me && r.local[j] >= own_columns)
      throw input_error("the roster names column " +
                        std::to_string(r.local[j]) + " of this party, which " +
                        "has " + std::to_string(own_columns));
    mine += r.owner[j] == me;
  }
  if (me < r.computing && mine != own_columns)
    throw input_error("the roster gives this party " + std::to_string(mine) +
                      " features; it holds " + std::to_string(own_columns));
  return m;
}

session::trained make_trained(const party_state& st) {
  const auto& role = *st.party;
  pvt::training_report report;
  for (const auto& t : role.model().tables)
    report.features.insert(report.features.end(), t.features.begin(),
                           t.features.end());
  report.rounds = role.rounds();
  if (st.online_since)
    report.offline_seconds =
        std::chrono::duration<double>(*st.online_since - st.started).count();
  session::trained out;
  out.seconds = seconds_since(st.started);
  out.report = messages::pack(report);
  return out;
}

/// The role's first messages, or the role's refusal as bad input
/// (begin_work ends the actor with it).
pv::outbox started(protocols::outcome<pv::outbox> r) {
  if (!r)
    throw std::runtime_error("could not start at step " + r.error().step +
                             ": " + r.error().reason);
  return std::move(*r);
}

/// A Privet party (a computing party or the dealer) on the shared role
/// host (actors/role_host.hpp).
struct party_hooks : loading_party_hooks<party_state>,
                     no_part_hooks<party_state> {
  using state = party_state;
  using spec = privet_party_spec;
  using settings = pvt::roster_settings;
  using message = pv::message;
  using failure = pv::failure;

  static caf::result<caf::ok_atom> join(party_actor* self,
                                        const session::roster& base,
                                        const pvt::roster_settings& r,
                                        const std::vector<caf::actor>& peers,
                                        std::int32_t at) {
    auto& st = self->state;
    if (!st.given)
      return session_error(errc::bad_request,
                           st.me + ": Privet's parties are given their data "
                                   "at spawn");
    if (r.computing < 2 ||
        peers.size() != static_cast<std::size_t>(r.computing) + 1)
      return session_error(errc::bad_request,
                           st.me + ": the roster does not hold its computing "
                                   "parties and the dealer");
    st.join(self, base, peers, at);
    auto spec = std::move(*st.given);
    st.given.reset();
    // What throws here is bad input (host_roster).
    auto map = map_of(r, at, spec.features.features());
    if (at == r.computing) {
      st.dealer =
          std::make_unique<pv::dealer_role>(r.computing, seed_of(st, true));
      if (r.dealer_ahead)
        st.dry_run = r;
      return caf::ok_atom::value;
    }
    st.party = std::make_unique<pv::computing_party>(
        at, r.computing, r.params, std::move(map), std::move(spec.features),
        seed_of(st, false));
    st.eval = std::move(spec.eval);
    return caf::ok_atom::value;
  }
  static void train(party_actor* self) {
    auto& st = self->state;
    if (!st.has_role() || st.training || (st.party && st.party->trained())) {
      abort(self, errc::bad_request,
            st.me + ": train before the roster, or a second time");
      return;
    }
    // Every party answers within the idle bound until the online phase
    // begins (the dealer's dry run may take longer than one step's
    // timeout); then party 0 is busy training (see after_step) and reports
    // it.
    if (st.dealer)
      begin_work(
          self, nullptr,
          [&] {
            // The offline phase: the last party's requests, found by a dry
            // run of the program on rows of zeros, answered before the
            // seeds.
            if (st.dry_run) {
              const auto& r = *st.dry_run;
              st.dealer->answer_ahead(pv::training_requests(
                  r.params, map_of(r, r.computing, 0),
                  static_cast<std::size_t>(r.rows), r.computing));
              st.dry_run.reset();
            }
            return st.dealer->start();
          },
          after_step);
    else
      begin_work(
          self, nullptr, [&] { return started(st.party->start()); },
          after_step);
  }
  static void predict(party_actor* self) {
    auto& st = self->state;
    // A party other than the label holder may still be finishing its last
    // round of training: the role starts the prediction after it.
    if (!st.party || st.predicting) {
      abort(self, errc::bad_request, st.me + ": predict at the dealer");
      return;
    }
    begin_work(
        self, st.index == 0 ? &peer_state::predicting : nullptr,
        [&] { return started(st.party->start_predict(st.eval)); }, after_step);
  }
  static auto on_message(party_actor* self, std::int32_t from,
                         const pv::message& m) {
    auto& st = self->state;
    return st.party ? st.party->on_message(from, m)
                    : st.dealer->on_message(from, m);
  }
  /// Party 0 reports its finished work to the coordinator.
  static void after_step(party_actor* self) {
    auto& st = self->state;
    if (st.index != 0 || !st.party)
      return;
    if (!st.online_since && st.party->rounds() > 0) {
      // The online phase began: from now on party 0 is busy training and
      // fails the session when no peer answers within the timeout. Before,
      // the dealer's dry run may take longer than one step's timeout.
      st.online_since = clock_type::now();
      st.training = true;
      arm_ticks(self);
    }
    report_finished(
        self, *st.party, [&] { return make_trained(st); },
        [](session::predicted&) {});
  }
};

using driver = session_driver<privet_outcome>;

} // namespace

template <>
struct session_hooks<privet_protocol>
    : shared_session_hooks<privet_protocol, party_hooks> {
  using run = privet_run;
  static party_kind kind() { return privet_party_kind(); }

  static run run_of(const parties_config& cfg) { return run(cfg); }

  static run run_of(const privet_config& cfg) {
    run r(cfg);
    r.params = cfg.params;
    r.map = cfg.map;
    r.dealer_ahead = cfg.dealer_ahead;
    if (!cfg.parties.empty())
      r.rows = cfg.parties[0].features.rows();
    return r;
  }

  static void check(const run& r, std::size_t n) {
    check_actors("Privet", "parties",
                 "at least 2 computing parties and the dealer", n,
                 r.names.size(), r.load.size(), r.timeout);
    if (n < 3)
      throw input_error("Privet needs at least 2 computing parties and the "
                        "dealer, got " +
                        std::to_string(n) + " parties");
    if (!r.load.empty() || r.restore)
      throw input_error("Privet's parties are given their data in this "
                        "process (--data with --parties); parties that load "
                        "their own files are not supported yet");
    if (!r.parts.path.empty())
      throw input_error("Privet's parties keep no model part files yet "
                        "(no --model-out)");
    auto computing = static_cast<int>(n - 1);
    for (auto o : r.map.owner)
      if (o < 0 || o >= computing)
        throw input_error("the column map names party " + std::to_string(o) +
                          " of " + std::to_string(computing));
    if (r.dealer_ahead && r.rows == 0)
      throw input_error("the dealer answers ahead for a number of training "
                        "rows: give it (privet_run::rows)");
    if (r.params.tables < 1 || r.params.depth < 1 || r.params.buckets < 2)
      throw input_error("Privet needs at least one table, a depth of at "
                        "least 1 and at least 2 buckets");
  }

  /// Hands out the roster: a mesh of the computing parties and the dealer
  /// (the last), one message for all.
  static void open(driver& d, const run& r, privet_result&) {
    pvt::roster_settings settings;
    settings.params = r.params;
    settings.computing = static_cast<std::int32_t>(d.size() - 1);
    settings.rows = r.rows;
    settings.dealer_ahead = r.dealer_ahead;
    for (std::size_t j = 0; j < r.map.features(); ++j) {
      settings.owner.push_back(r.map.owner[j]);
      settings.local.push_back(r.map.local[j]);
    }
    d.hand_out_roster(r, -1, settings);
  }

  /// Every party trains (the dealer sends the seeds); party 0 reports the
  /// public structure.
  static void train(driver& d, const run& r, privet_result& result) {
    std::vector<pvt::training_report> reports;
    auto seconds = d.train_step(d.all(), {0}, reports,
                                [](std::size_t, session::trained&) {});
    if (d.error)
      return;
    result.train_seconds = seconds;
    const auto& report = reports[0];
    auto depth = static_cast<std::size_t>(r.params.depth);
    if (report.features.size() !=
        static_cast<std::size_t>(r.params.tables) * depth)
      return d.fail(errc::protocol_error,
                    d.name(0) + " reported a model of another shape");
    result.tables.clear();
    for (std::size_t t = 0; t < report.features.size(); t += depth)
      result.tables.emplace_back(report.features.begin() + static_cast<long>(t),
                                 report.features.begin() +
                                     static_cast<long>(t + depth));
    result.rounds = report.rounds;
    result.offline_seconds = report.offline_seconds;
  }

  /// Every computing party runs SecInfer; party 0 gets the scores.
  static void predict(driver& d, const run&, privet_result& result) {
    std::vector<std::size_t> computing(d.size() - 1);
    for (std::size_t c = 0; c < computing.size(); ++c)
      computing[c] = c;
    auto seconds = d.predict_step(computing, [&](session::predicted& p) {
      result.margins = std::move(p.margins);
    });
    if (!d.error)
      result.predict_seconds = seconds;
  }
};

template class live_session<privet_protocol>;

party_kind privet_party_kind() {
  return kind_of<party_hooks>("privet");
}

caf::actor spawn_privet_party(caf::actor_system& sys, privet_party_spec spec,
                              std::optional<std::uint64_t> test_seed,
                              std::int32_t index) {
  return spawn_given<party_hooks>(sys, std::move(spec), test_seed, index);
}

privet_outcome run_privet_actors(caf::actor_system& sys,
                                 std::vector<caf::actor> parties,
                                 const privet_run& run) {
  return run_on_actors<privet_protocol>(sys, std::move(parties), run);
}

} // namespace veil::actors
