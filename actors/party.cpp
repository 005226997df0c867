// A plain party (plaintext vertical federated XGBoost) on the shared role
// host (actors/role_host.hpp): party 0, the one with the labels, hosts the
// active role and trains and predicts; every other party hosts the passive
// role and answers it. The session is a star around the active party.

#include "actors/party.hpp"

#include <optional>
#include <utility>
#include <vector>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/errors.hpp"
#include "actors/role_host.hpp"
#include "actors/support.hpp"
#include "learners/metrics/metrics.hpp"
#include "messages/plain.hpp"
#include "messages/session.hpp"
#include "protocols/plain/active_party.hpp"
#include "protocols/plain/passive_party.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::actors {

namespace {

namespace plain = protocols::plain;
namespace session = protocols::session;
using session::errc;

/// Plain parties always load their own rows: nothing is given at spawn.
struct nothing_given {};

struct party_state : data_party_state<nothing_given> {
  static inline const char* name = "veil.party";

  std::optional<plain::active_party> active;   // index 0, once it trains
  std::optional<plain::passive_party> passive; // index > 0
  plain::roster_settings settings;             // the roster's
  std::vector<float> test_labels; ///< of the rows the active party predicts
  double bin_seconds = 0;
  bool restored = false; ///< the role comes from a saved part

  bool has_role() const { return active || passive; }
};

using plain_party = caf::stateful_actor<party_state>;

void abort(plain_party* self, errc code, std::string message) {
  self->quit(session_error(code, std::move(message)));
}

/// The passive parties' ids: every party but the active one.
std::vector<plain::party_id> passive_ids(const party_state& st) {
  std::vector<plain::party_id> ids;
  for (const auto& n : st.neighbours)
    ids.push_back(static_cast<plain::party_id>(n.index));
  return ids;
}

/// This party's split table, its features by name.
session::split_export split_table_of(const party_state& st) {
  if (st.active)
    return session::export_splits(st.me, st.active->own_splits(),
                                  st.active->model().feature_names);
  if (st.passive)
    return session::export_splits(st.me, st.passive->splits(),
                                  st.passive->train_data().feature_names());
  return {st.me, {}};
}

/// A plain party on the shared role host.
struct party_hooks : loading_party_hooks<party_state> {
  using state = party_state;
  using spec = nothing_given;
  using settings = plain::roster_settings;
  using message = plain::message;
  using failure = plain::failure;

  static caf::result<caf::ok_atom> join(plain_party* self,
                                        const session::roster& r,
                                        const plain::roster_settings& params,
                                        const std::vector<caf::actor>& peers,
                                        std::int32_t at) {
    auto& st = self->state;
    if (r.hub != 0)
      return session_error(errc::bad_request,
                           st.me + ": a plain session is a star around the "
                                   "active party (hub 0)");
    if (at != 0 && st.loaded.train.has_labels())
      return session_error(errc::bad_input,
                           st.me + ": a passive party holds labels");
    st.join(self, r, peers, at);
    st.settings = params;
    if (st.index != 0 && st.loaded.train_loaded) { // else see restore_part
      st.passive.emplace(std::move(st.loaded.train), params.exchange,
                         params.masking, at);
      if (st.loaded.test_loaded)
        st.passive->set_predict_data(std::move(st.loaded.test));
    }
    return caf::ok_atom::value;
  }
  /// The active party bins its columns and starts the first tree; the
  /// passive parties answer it (they get no train request).
  static void train(plain_party* self) {
    auto& st = self->state;
    if (st.index != 0) {
      abort(self, errc::bad_request,
            st.me + " is not the active party of this session (or has no "
                    "roster yet)");
      return;
    }
    if (st.has_role() || !st.loaded.train_loaded) {
      abort(self, errc::bad_request,
            st.me + ": train a second time, or without training data");
      return;
    }
    begin_work(
        self, &peer_state::training,
        [&] {
          st.active.emplace(st.settings.booster, std::move(st.loaded.train),
                            passive_ids(st), st.settings.exchange,
                            st.settings.masking);
          // Every round evaluated on the test rows (a copy: they are
          // predicted again after training).
          if (st.settings.booster.eval_rounds && st.loaded.test_loaded &&
              !st.loaded.test_is_train)
            st.active->evaluate_rounds_on(st.loaded.test);
          st.bin_seconds = seconds_since(st.started);
          return st.active->start();
        },
        after_step);
  }
  static void predict(plain_party* self) {
    auto& st = self->state;
    if (!st.active || st.training || st.predicting || !st.loaded.test_loaded) {
      abort(self, errc::bad_request,
            st.me + ": predict before training ended, without rows to "
                    "predict, or not the active party");
      return;
    }
    st.test_labels = st.loaded.test.labels();
    // A copy: a live session may predict the same rows again.
    begin_work(
        self, &peer_state::predicting,
        [&] { return st.active->start_predict(st.loaded.test); }, after_step);
  }
  static auto on_message(plain_party* self, std::int32_t from,
                         plain::message& m) {
    auto& st = self->state;
    return st.active ? st.active->on_message(from, m)
                     : st.passive->on_message(from, std::move(m));
  }
  /// After a protocol step of the active party: reports its progress, and
  /// sends the coordinator the model or the prediction when it is done.
  static void after_step(plain_party* self) {
    auto& st = self->state;
    if (!st.active)
      return;
    const auto& m = st.active->model();
    if (st.training) {
      // A round counts once evaluated, so that its report has its metrics.
      const auto& history = st.active->history();
      auto k = static_cast<std::size_t>(m.outputs());
      auto done = st.active->evaluating() ? history.size() * k : m.trees.size();
      report_progress(self, done,
                      static_cast<std::size_t>(st.settings.booster.rounds) * k,
                      "train",
                      history.empty() ? std::map<std::string, double>{}
                                      : history.back().valid);
    } else if (st.predicting)
      report_progress(self, 0, 0, "predict");
    report_finished(
        self, *st.active,
        [&] {
          // What its noise applied, for the session to print.
          auto applied = st.active->applied();
          return session::trained{m,
                                  seconds_since(st.started),
                                  st.bin_seconds,
                                  st.active->own_splits().size(),
                                  applied ? messages::pack(*applied)
                                          : std::vector<std::uint8_t>{},
                                  session::to_wire(st.active->history()),
                                  st.active->early_stop()};
        },
        // The metrics from its own labels: they stay with it.
        [&](session::predicted& out) {
          if (st.test_labels.empty())
            return;
          auto obj = m.make_objective();
          auto preds = obj.transform(out.margins, st.test_labels.size());
          session::put_metrics(learners::evaluate(obj, st.test_labels, preds),
                               out.metric_names, out.metric_values);
        });
  }
  /// Keeps this party's part of the trained model where it runs: a passive
  /// party's split table (the active party's splits are in the model the
  /// coordinator keeps).
  static caf::result<std::uint64_t> save_part(plain_party* self,
                                              session::part_request& r) {
    auto& st = self->state;
    if (st.restored || !st.has_role()) // not busy: see host_part
      return session_error(errc::bad_request,
                           st.me + ": save a model part after training only");
    auto table = split_table_of(st);
    if (r.trees >= 0) // early stopping kept the first r.trees trees
      std::erase_if(table.splits, [&](const session::split_entry& e) {
        return e.tree >= r.trees;
      });
    if (st.passive)
      session::save_split_table(table, r.model_id, r.path);
    return std::uint64_t{table.splits.size()};
  }
  /// Restores this party's role for a prediction session over its test
  /// rows: the active party from the model, a passive one from its split
  /// table.
  static caf::result<std::uint64_t> restore_part(plain_party* self,
                                                 session::part_request& r) {
    auto& st = self->state;
    if (st.has_role() || st.index < 0 || !st.loaded.test_loaded)
      return session_error(errc::bad_request,
                           st.me + ": " + restore_precondition);
    const auto& columns = st.loaded.test.feature_names();
    st.restored = true;
    if (st.index == 0) {
      for (std::size_t f = 0; f < columns.size(); ++f)
        if (f >= r.model.feature_names.size() ||
            r.model.feature_names[f] != columns[f])
          return session_error(
              errc::bad_input,
              st.me + ": column " + std::to_string(f + 1) + " (" + columns[f] +
                  ") is not the model's feature " +
                  (f < r.model.feature_names.size() ? r.model.feature_names[f]
                                                    : std::string("(none)")));
      std::uint64_t own = 0;
      for (const auto& t : r.model.trees)
        for (const auto& n : t.nodes)
          own += !n.is_leaf() && n.owner == 0;
      st.active = plain::active_party::restored(
          std::move(r.model), columns.size(), passive_ids(st));
      return own;
    }
    auto part = session::load_split_table(r.path, st.me, r.model_id);
    auto splits = session::import_splits<plain::split_table>(
        part, columns, r.path, [](std::int32_t f, const auto& e) {
          return plain::owned_split{f, e.threshold, e.default_left};
        });
    st.loaded.test_loaded = false;
    st.passive.emplace(std::move(splits), std::move(st.loaded.test));
    return std::uint64_t{part.splits.size()};
  }
  /// The split table, to the session's coordinator only (an explicit
  /// export, which the report names).
  static caf::message_handler extra(plain_party* self) {
    return {[=](messages::splits_atom) -> caf::result<session::split_export> {
      if (!from_coordinator(self))
        return session_error(errc::bad_request,
                             self->state.me +
                                 ": a split table goes to the session's "
                                 "coordinator only");
      return split_table_of(self->state);
    }};
  }
};

} // namespace

caf::actor spawn_party(caf::actor_system& sys, std::string name) {
  return spawn_host<party_hooks>(sys, std::move(name));
}

party_kind plain_party_kind() {
  return kind_of<party_hooks>("plain");
}

} // namespace veil::actors
