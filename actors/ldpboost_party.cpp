// The LDP boosting party actor (hosting protocols/ldpboost/roles.hpp's data
// user or an owner, I/O-free roles) and the driver of a session over party
// actors: a star around the data user (index 0).
//
// The session steps, coordinator -> party (each a request unless noted):
//   (peers_atom, session::roster [ldp::roster_settings], peers) -> ok_atom
//   (train_atom)   to the data user; then data user -> coordinator:
//                  session::trained (ldp::training_report)
//   (predict_atom) to the data user: its evaluation rows, predicted by its
//                  own ensemble; then session::predicted
//   (stats_atom) -> session::byte_stats
// Party to party: share_request (data user -> owner), share_reply. An owner
// only answers (within the idle bound). An owner that has not answered
// half a timeout after its request is skipped: the attempt goes on with
// the others (spec §4.5), and the report counts it. An owner that ends
// ends the session, as any party does.

#include <memory>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/errors.hpp"
#include "actors/ldpboost_party.hpp"
#include "actors/live_session_impl.hpp"
#include "actors/role_host.hpp"
#include "actors/support.hpp"
#include "learners/input_error.hpp"
#include "messages/ldpboost.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/crypto/random.hpp"

namespace veil::actors {

namespace {

namespace lb = protocols::ldpboost;
namespace session = protocols::session;
namespace ldp = messages::ldp;
using session::errc;

struct party_state : data_party_state<ldpboost_party_spec> {
  static inline const char* name = "veil.ldpboost_party";

  std::unique_ptr<lb::data_user> user; // index 0
  std::unique_ptr<lb::owner> owner;    // index > 0
  learners::labelled_rows eval;        ///< the data user's
  int classes = 2;
  int rounds = 0;
  /// The attempt whose deadline is armed (data user).
  std::optional<std::uint64_t> deadline_for;

  bool has_role() const { return user || owner; }
};

using party_actor = caf::stateful_actor<party_state>;

void abort(party_actor* self, errc code, std::string message) {
  self->quit(session_error(code, std::move(message)));
}

std::uint64_t seed_of(const party_state& st) {
  return st.test_seed ? *st.test_seed : 0;
}

session::trained make_trained(const party_state& st) {
  const auto& u = *st.user;
  ldp::training_report report;
  report.alpha = u.alpha();
  report.ensemble = lb::encode(u.ensemble());
  const auto& log = u.log();
  report.errors = log.errors;
  report.rejected = log.rejected;
  report.burned = log.burned;
  report.silent = log.silent;
  report.stopped = log.stopped;
  report.staged_test_errors = lb::staged_errors(
      u.alpha(), u.ensemble(), st.classes, u.bounds(), st.eval);
  session::trained out;
  out.seconds = seconds_since(st.started);
  out.report = messages::pack(report);
  return out;
}

/// An LDP boosting party (the data user or an owner) on the shared role
/// host (actors/role_host.hpp).
struct party_hooks : loading_party_hooks<party_state>,
                     no_part_hooks<party_state> {
  using state = party_state;
  using spec = ldpboost_party_spec;
  using settings = ldp::roster_settings;
  using message = lb::message;
  using failure = lb::failure;

  static caf::result<caf::ok_atom> join(party_actor* self,
                                        const session::roster& base,
                                        const ldp::roster_settings& r,
                                        const std::vector<caf::actor>& peers,
                                        std::int32_t at) {
    auto& st = self->state;
    if (!st.given)
      return session_error(errc::bad_request,
                           st.me + ": LDP boosting's parties are given their "
                                   "data at spawn");
    if (base.hub != 0)
      return session_error(errc::bad_request,
                           st.me + ": the roster is not a star around the "
                                   "data user");
    st.join(self, base, peers, at);
    auto spec = std::move(*st.given);
    st.given.reset();
    // What throws here is bad input (host_roster).
    r.params.validate();
    if (r.lower.size() != spec.features.features ||
        r.upper.size() != spec.features.features)
      throw input_error("the roster's scaling bounds are for " +
                        std::to_string(r.lower.size()) +
                        " features; this "
                        "party's rows have " +
                        std::to_string(spec.features.features));
    st.classes = r.params.classes;
    st.rounds = r.params.rounds;
    if (at == 0) {
      st.user = std::make_unique<lb::data_user>(
          std::move(spec.features), peers.size() - 1, r.params,
          r.pick_seed != 0 ? r.pick_seed
                           : protocols::crypto::system_random{}());
      st.eval = std::move(spec.eval);
      // The owners scale by the roster's bounds: they must be this data
      // user's (spec §3.4), or the centroids mix two scales.
      if (st.user->bounds().lower != r.lower ||
          st.user->bounds().upper != r.upper)
        throw input_error("the roster's scaling bounds are not the data "
                          "user's own rows' range");
    } else {
      st.owner = std::make_unique<lb::owner>(at, std::move(spec.features),
                                             lb::scaling{r.lower, r.upper},
                                             r.params, seed_of(st));
      keep_watch(self); // it only answers, within the idle bound
    }
    return caf::ok_atom::value;
  }
  static void train(party_actor* self) {
    auto& st = self->state;
    if (!st.user || st.training || st.user->done()) {
      abort(self, errc::bad_request,
            st.me + ": train at an owner, or a second time");
      return;
    }
    begin_work(
        self, &peer_state::training, [&] { return st.user->start(); },
        after_step);
  }
  /// The data user predicts its evaluation rows with its own ensemble.
  static void predict(party_actor* self) {
    auto& st = self->state;
    if (!st.user || !st.user->done()) {
      abort(self, errc::bad_request,
            st.me + ": predict at an owner or before training ended");
      return;
    }
    auto start = clock_type::now();
    auto rows = st.user->bounds().apply(st.eval);
    session::predicted out;
    for (std::size_t i = 0; i < rows.rows(); ++i) {
      out.margins.push_back(lb::vote(st.user->alpha(), st.user->ensemble(),
                                     st.classes, rows.row(i)));
      out.labels.push_back(static_cast<float>(rows.y[i]));
    }
    out.seconds = seconds_since(start);
    self->send(st.coordinator, std::move(out));
  }
  static auto on_message(party_actor* self, std::int32_t from,
                         const lb::message& m) {
    auto& st = self->state;
    return st.user ? st.user->on_message(from, m)
                   : st.owner->on_message(from, m);
  }
  /// The data user: arms the deadline of a new attempt, reports progress,
  /// and its ensemble when training ends.
  static void after_step(party_actor* self) {
    auto& st = self->state;
    if (!st.user || !st.training)
      return;
    if (st.user->done()) {
      st.training = false;
      self->send(st.coordinator, make_trained(st));
      return;
    }
    report_progress(self, st.user->rounds_done(),
                    static_cast<std::size_t>(st.rounds));
    auto key = st.user->attempt_key();
    if (st.deadline_for == key)
      return;
    st.deadline_for = key;
    self->delayed_send(self, st.timeout / 2, messages::deadline_atom::value,
                       key);
  }
  /// An attempt's deadline: the owners that have not answered are skipped.
  static void on_deadline(party_actor* self, std::uint64_t key) {
    auto& st = self->state;
    if (!st.user || !st.training || st.user->attempt_key() != key)
      return;
    busy_clock working{st.busy_seconds};
    for (auto q : st.user->waiting()) {
      auto out = st.user->on_silent(q);
      if (!out) {
        abort(self, errc::protocol_error,
              st.me + " could not skip a silent owner: " + out.error().reason);
        return;
      }
      route(self, std::move(*out));
      if (has_quit(self) || st.user->attempt_key() != key)
        break;
    }
    after_step(self);
  }
  static caf::message_handler extra(party_actor* self) {
    return {[self](messages::deadline_atom, std::uint64_t key) {
      on_deadline(self, key);
    }};
  }
};

using driver = session_driver<ldpboost_outcome>;

/// The spec's synthetic setting deals 187,500 owners (§7.4); an owner
/// costs about 5.4 KB (bench/ldpboost_scale.cpp).
constexpr std::size_t max_owners = 1000000;

} // namespace

template <>
struct session_hooks<ldpboost_protocol>
    : shared_session_hooks<ldpboost_protocol, party_hooks> {
  using run = ldpboost_run;
  static party_kind kind() { return ldpboost_party_kind(); }

  static run run_of(const parties_config& cfg) { return run(cfg); }

  /// The public scaling bounds come from the data user's own rows (spec
  /// §3.4), as its role computes them.
  static run run_of(const ldpboost_config& cfg) {
    run r(cfg);
    r.params = cfg.params;
    if (!cfg.parties.empty()) {
      auto b = lb::scaling::of(cfg.parties[0].features);
      r.lower = b.lower;
      r.upper = b.upper;
    }
    r.pick_seed = cfg.test_seed.value_or(0);
    return r;
  }

  static void check(const run& r, std::size_t n) {
    check_actors("LDP boosting", "parties",
                 "the data user and at least one owner", n, r.names.size(),
                 r.load.size(), r.timeout, max_owners + 1);
    if (!r.load.empty() || r.restore)
      throw input_error("LDP boosting's parties are given their data in "
                        "this process (--data); parties that load their own "
                        "files are not supported yet");
    if (!r.parts.path.empty())
      throw input_error("LDP boosting keeps no model part files (no "
                        "--model-out)");
    r.params.validate();
  }

  static void open(driver& d, const run& r, ldpboost_result& result) {
    ldp::roster_settings settings{r.params, r.lower, r.upper, r.pick_seed};
    result.lower = r.lower;
    result.upper = r.upper;
    d.hand_out_roster(r, 0, settings);
  }

  static void train(driver& d, const run&, ldpboost_result& result) {
    std::vector<ldp::training_report> reports;
    auto seconds =
        d.train_step({0}, {0}, reports, [](std::size_t, session::trained&) {});
    if (d.error)
      return;
    result.train_seconds = seconds;
    auto& report = reports[0];
    auto ensemble = lb::decode(report.ensemble);
    if (!ensemble || ensemble->size() != report.alpha.size())
      return d.fail(errc::protocol_error,
                    d.name(0) + " reported a malformed ensemble");
    result.ensemble = std::move(*ensemble);
    result.alpha = std::move(report.alpha);
    result.errors = std::move(report.errors);
    result.rejected = report.rejected;
    result.burned = report.burned;
    result.silent = report.silent;
    result.stopped = std::move(report.stopped);
    result.staged_test_errors = std::move(report.staged_test_errors);
  }

  static void predict(driver& d, const run&, ldpboost_result& result) {
    auto seconds = d.predict_step([&](session::predicted& p) {
      result.margins = std::move(p.margins);
      result.labels = std::move(p.labels);
    });
    if (!d.error)
      result.predict_seconds = seconds;
  }
};

template class live_session<ldpboost_protocol>;

party_kind ldpboost_party_kind() {
  return kind_of<party_hooks>("ldp-boost");
}

caf::actor spawn_ldpboost_party(caf::actor_system& sys,
                                ldpboost_party_spec spec,
                                std::optional<std::uint64_t> test_seed,
                                std::int32_t index) {
  return spawn_given<party_hooks>(sys, std::move(spec), test_seed, index);
}

ldpboost_outcome run_ldpboost_actors(caf::actor_system& sys,
                                     std::vector<caf::actor> parties,
                                     const ldpboost_run& run) {
  return run_on_actors<ldpboost_protocol>(sys, std::move(parties), run);
}

} // namespace veil::actors
