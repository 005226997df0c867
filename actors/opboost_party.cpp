#include "actors/opboost_party.hpp"

#include <algorithm>
#include <limits>
#include <memory>
#include <variant>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/errors.hpp"
#include "actors/live_session_impl.hpp"
#include "actors/local_system.hpp"
#include "actors/role_host.hpp"
#include "actors/support.hpp"
#include "learners/input_error.hpp"
#include "messages/opboost.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/opboost/active_party.hpp"
#include "protocols/opboost/part_file.hpp"
#include "protocols/opboost/passive_party.hpp"
#include "protocols/opboost/privacy.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::actors {

namespace {

namespace op = protocols::opboost;
namespace session = protocols::session;
namespace opl = messages::opl;
using session::errc;

struct party_state : data_party_state<opboost_party_spec> {
  static inline const char* name = "veil.opboost_party";

  std::unique_ptr<op::active_party> active;   // index 0
  std::unique_ptr<op::passive_party> passive; // index > 0
  learners::dataset eval; ///< Party A: its columns of the rows to predict
  std::vector<float> eval_labels; ///< Party A: their labels (loaded)
  /// The roster's params (a restored Party A is built with them).
  std::optional<op::params> roster_params;
  bool restored = false;    ///< the role comes from a saved part
  bool staged_sent = false; ///< see add_staged

  bool has_role() const { return active || passive; }
};

using party_actor = caf::stateful_actor<party_state>;

void abort(party_actor* self, errc code, std::string message) {
  self->quit(session_error(code, std::move(message)));
}

session::trained make_trained(const party_state& st) {
  const auto& a = *st.active;
  session::trained out;
  out.model = a.model();
  out.own_splits = a.splits().size();
  out.seconds = seconds_since(st.started);
  out.report =
      messages::pack(op::training_report_of(a.privacy_report(), a.spent()));
  return out;
}

/// A loading party's role inputs: its training and test rows, and (a Party
/// B) its maps, from the roster's public bounds or its data.
opboost_party_spec spec_from_loaded(party_state& st,
                                    const opl::roster_settings& r) {
  opboost_party_spec s;
  s.name = st.me;
  s.features = std::move(st.loaded.train);
  if (st.loaded.test_loaded) {
    s.eval = std::move(st.loaded.test);
    st.eval_labels = std::move(s.eval.labels());
    s.eval.labels().clear();
  }
  if (st.index == 0)
    return s;
  s.features.labels().clear();
  s.maps =
      op::maps_for(s.features, r.bound_columns, r.bound_lower, r.bound_upper);
  return s;
}

/// An OpBoost party (Party A or a Party B) on the shared role host
/// (actors/role_host.hpp).
struct party_hooks : loading_party_hooks<party_state> {
  using state = party_state;
  using spec = opboost_party_spec;
  using settings = opl::roster_settings;
  using message = op::message;
  using failure = op::failure;

  static caf::result<caf::ok_atom> join(party_actor* self,
                                        const session::roster& base,
                                        const opl::roster_settings& r,
                                        const std::vector<caf::actor>& peers,
                                        std::int32_t at) {
    auto& st = self->state;
    auto n = peers.size();
    if (r.bound_lower.size() != r.bound_columns.size() ||
        r.bound_upper.size() != r.bound_columns.size())
      return session_error(errc::bad_request, st.me + ": malformed roster");
    st.join(self, base, peers, at);
    st.roster_params = r.params;
    if (!st.given && !st.loaded.train_loaded)
      return caf::ok_atom::value; // a prediction session: see restore_part
    // What throws here is bad input (host_roster).
    r.params.validate();
    auto spec = st.given ? std::move(*st.given) : spec_from_loaded(st, r);
    st.given.reset();
    if (st.index == 0) {
      std::vector<op::party_id> ids;
      for (std::size_t q = 1; q < n; ++q)
        ids.push_back(static_cast<op::party_id>(q));
      st.active = std::make_unique<op::active_party>(
          r.params, std::move(spec.features), std::move(ids));
      // Party A trains locally in one step: its rounds are the progress.
      auto k = static_cast<std::size_t>(
          learners::objective(r.params.booster.objective,
                              r.params.booster.num_class)
              .outputs());
      auto rounds = static_cast<std::size_t>(r.params.booster.rounds);
      st.active->on_round([self, k, rounds](const learners::round_info& info) {
        report_progress(self, static_cast<std::size_t>(info.round) * k,
                        rounds * k);
      });
      st.eval = std::move(spec.eval);
    } else {
      st.passive = std::make_unique<op::passive_party>(
          st.index, r.params, std::move(spec.features), std::move(spec.maps),
          op::party_random(st.test_seed, st.index));
      if (spec.eval.rows() > 0)
        st.passive->set_predict_data(spec.eval);
    }
    return caf::ok_atom::value;
  }
  static void train(party_actor* self) {
    auto& st = self->state;
    if (!st.has_role() || st.training ||
        (st.active && st.active->training_done())) {
      abort(self, errc::bad_request,
            st.me + ": train before the roster, or a second time");
      return;
    }
    // Party A waits for every Party B's schema and ranks; a Party B sends
    // them, then answers Party A (not busy: Party A's training may take
    // longer than the timeout; it gives up after the idle bound, see
    // idle_timeouts).
    if (st.active)
      begin_work(
          self, &peer_state::training, [] { return op::outbox{}; }, after_step);
    else
      begin_work(
          self, nullptr, [&] { return st.passive->start(); }, after_step);
  }
  static void predict(party_actor* self) {
    auto& st = self->state;
    if (!st.active || !st.active->training_done() || st.predicting) {
      abort(self, errc::bad_request,
            st.me + ": predict at a Party B or before training ended");
      return;
    }
    begin_work(
        self, &peer_state::predicting,
        [&] { return st.active->start_private_predict(st.eval); }, after_step);
  }
  static auto on_message(party_actor* self, std::int32_t from,
                         const op::message& m) {
    auto& st = self->state;
    return st.active ? st.active->on_message(from, m)
                     : st.passive->on_message(from, m);
  }
  /// Reports Party A's finished work to the coordinator. Party B is done when
  /// it answered the split request; it stays up for prediction requests.
  static void after_step(party_actor* self) {
    auto& st = self->state;
    if (!st.active)
      return;
    if (st.training) {
      const auto& m = st.active->model();
      report_progress(
          self, m.trees.size(),
          static_cast<std::size_t>(st.roster_params->booster.rounds) *
              static_cast<std::size_t>(m.outputs()));
    }
    report_finished(
        self, *st.active, [&] { return make_trained(st); },
        [&](session::predicted& out) {
          out.labels = st.eval_labels;
          add_staged(st, *st.active, out);
        });
  }
  /// Keeps this party's part of the trained model where it runs: a Party B
  /// its columns' public constants and its mechanism (Party A's part is the
  /// model the coordinator holds).
  static caf::result<std::uint64_t> save_part(party_actor* self,
                                              session::part_request& r) {
    auto& st = self->state;
    if (st.restored || (st.passive && !st.passive->answered()) ||
        (st.active && !st.active->training_done()) || !st.has_role())
      return session_error(errc::bad_request,
                           st.me + ": save a model part after training only");
    if (!st.passive)
      return std::uint64_t{st.active->splits().size()};
    const auto& b = *st.passive;
    op::save_party_part(
        {st.me, r.model_id, b.settings(), b.feature_names(), b.maps()}, r.path);
    return std::uint64_t{0};
  }
  /// Restores this party's role for a prediction session over its test
  /// rows: Party A from the model and every party's columns, a Party B from
  /// its part.
  static caf::result<std::uint64_t> restore_part(party_actor* self,
                                                 session::part_request& r) {
    auto& st = self->state;
    if (st.has_role() || st.index < 0 || !st.loaded.test_loaded ||
        !st.roster_params)
      return session_error(errc::bad_request,
                           st.me + ": " + restore_precondition);
    if (st.index == 0) {
      auto n = st.neighbours.size() + 1;
      if (r.features.size() != n)
        return session_error(
            errc::bad_request,
            st.me + ": the restore names " + std::to_string(r.features.size()) +
                " parties' columns for " + std::to_string(n) + " parties");
      std::vector<std::pair<op::party_id, std::vector<std::string>>> bs;
      for (std::size_t q = 1; q < n; ++q)
        bs.emplace_back(static_cast<op::party_id>(q), r.features[q]);
      // Its own columns are the model's (its rows may hold more: they are
      // selected by name when it predicts).
      st.active = op::active_party::restored(
          *st.roster_params, std::move(r.model), r.features[0], bs);
      st.eval = std::move(st.loaded.test);
      st.loaded.test_loaded = false;
      st.eval_labels = std::move(st.eval.labels());
      st.eval.labels().clear();
    } else {
      auto part = op::load_party_part(r.path, st.me, r.model_id);
      if (part.columns != st.loaded.test.feature_names())
        throw input_error(r.path + ": the part's columns are not the " +
                          "columns of the rows to predict");
      auto rows = std::move(st.loaded.test);
      st.loaded.test_loaded = false;
      rows.labels().clear();
      st.passive = std::make_unique<op::passive_party>(
          st.index, part.settings, rows, std::move(part.maps),
          op::party_random(st.test_seed, st.index));
      st.passive->set_predict_data(std::move(rows));
    }
    st.restored = true;
    keep_watch(self);
    return std::uint64_t{0};
  }
};

// -- the driver ---------------------------------------------------------------

using driver = session_driver<opboost_outcome>;

/// Who may hold labels: Party A, which must in training; no Party B. Empty
/// if the parties keep to it.
std::string label_error(driver& d,
                        const std::vector<session::data_summary>& train,
                        const std::vector<session::data_summary>& test) {
  if (!train.empty() && !train[0].has_labels)
    return d.name(0) + " (Party A) has no labels: name its label column";
  for (const auto* rows : {&train, &test})
    for (std::size_t c = 1; c < rows->size(); ++c)
      if ((*rows)[c].has_labels)
        return d.name(c) + " is a Party B and has labels: only Party A (" +
               d.name(0) + ") may hold them";
  return {};
}

/// Loads and aligns the parties' rows (a prediction session's: the rows to
/// predict only); checks who holds labels and that the public bounds name
/// Party B columns.
void load_data(driver& d, const opboost_run& run, opboost_result& result) {
  std::vector<session::data_summary> train, test;
  d.load_rows(run, train, test, [&](const auto& train, const auto& test) {
    auto msg = label_error(d, train, test);
    if (!msg.empty() || train.empty())
      return msg;
    std::vector<std::vector<std::string>> columns;
    for (const auto& s : train)
      columns.push_back(s.feature_names);
    return op::bounds_error(run.bounds, columns, d.name(0));
  });
  if (d.error)
    return;
  note_rows(result, train, test);
  if (run.restore)
    return;
  for (std::size_t c = 1; c < result.features.size(); ++c)
    for (const auto& f : result.features[c])
      if (!run.bounds.contains(f))
        result.fitted.push_back(f);
}

/// Training: every Party B sends M0 and M1, Party A trains, asks for the
/// split values and reports its model.
void train_parties(driver& d, opboost_result& result) {
  std::vector<op::training_report> reports;
  auto seconds = d.train_step(d.all(), {0}, reports,
                              [&](std::size_t, session::trained& t) {
                                result.model = std::move(t.model);
                                result.splits = t.own_splits;
                              });
  if (d.error)
    return;
  result.train_seconds = seconds;
  auto& done = reports[0];
  result.privacy_report = std::move(done.report);
  try {
    result.spent = op::spent_of(done);
  } catch (const std::out_of_range&) {
    d.fail(errc::protocol_error,
           d.name(0) + " sent a training report whose fields differ in "
                       "length");
  }
}

} // namespace

template <>
struct session_hooks<opboost_protocol>
    : shared_session_hooks<opboost_protocol, party_hooks> {
  using run = opboost_run;
  static party_kind kind() { return opboost_party_kind(); }

  static run run_of(const opboost_party_config& cfg) {
    run r(cfg);
    r.params = cfg.params;
    r.bounds = cfg.bounds;
    r.features = cfg.features;
    return r;
  }

  static run run_of(const opboost_config& cfg) {
    run r(cfg);
    r.params = cfg.params;
    return r;
  }

  static void check(const run& r, std::size_t n) {
    check_actors("OpBoost", "parties",
                 "Party A with the labels and at least one Party B", n,
                 r.names.size(), r.load.size(), r.timeout, max_star_parties);
    r.params.validate();
    for (const auto& [column, m] : r.bounds)
      m.validate(column);
    if (r.restore &&
        (r.load.empty() || r.parts.empty() || r.load[0].test_path.empty()))
      throw input_error("a prediction session needs the model parts and a "
                        "file of rows to predict per party");
  }

  /// Loads and aligns the parties' rows and hands out the roster: a star
  /// around Party A, one message for all (each finds itself in it). In a
  /// prediction session Party A restores the model with every party's
  /// columns, each Party B its part.
  static void open(driver& d, const run& r, opboost_result& result) {
    if (!r.load.empty())
      load_data(d, r, result);
    opl::roster_settings settings{r.params, {}, {}, {}};
    for (const auto& [column, m] : r.bounds) {
      settings.bound_columns.push_back(column);
      settings.bound_lower.push_back(m.lower);
      settings.bound_upper.push_back(m.upper);
    }
    d.hand_out_roster(r, 0, settings);
    if (!r.restore)
      return;
    d.ask_parts(true, r.parts, [&](std::size_t c, session::part_request& p) {
      if (c == 0) {
        p.model = *r.restore;
        p.features = r.features;
      }
    });
    if (!d.error)
      result.model = *r.restore;
  }

  static void train(driver& d, const run&, opboost_result& result) {
    train_parties(d, result);
  }

  /// Party A predicts privately: every Party B desensitizes its columns of
  /// the rows afresh.
  static void predict(driver& d, const run&, opboost_result& result) {
    auto seconds = d.predict_step([&](session::predicted& p) {
      take_staged(d, p, result); // checked against the margins: first
      result.margins = std::move(p.margins);
      result.labels = std::move(p.labels);
    });
    if (!d.error)
      result.predict_seconds = seconds;
  }
};

template class live_session<opboost_protocol>;

caf::actor spawn_opboost_party(caf::actor_system& sys, opboost_party_spec spec,
                               std::optional<std::uint64_t> test_seed,
                               std::int32_t index) {
  return spawn_given<party_hooks>(sys, std::move(spec), test_seed, index);
}

opboost_outcome run_opboost_actors(caf::actor_system& sys,
                                   std::vector<caf::actor> parties,
                                   const opboost_run& run) {
  return run_on_actors<opboost_protocol>(sys, std::move(parties), run);
}

party_kind opboost_party_kind() {
  return kind_of<party_hooks>("opboost");
}

} // namespace veil::actors
