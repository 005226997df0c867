#include "actors/feverless_client.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <tuple>
#include <variant>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/alignment.hpp"
#include "actors/errors.hpp"
#include "actors/live_session_impl.hpp"
#include "actors/local_system.hpp"
#include "actors/noise_filler.hpp"
#include "actors/role_host.hpp"
#include "actors/support.hpp"
#include "learners/boost/early_stopping.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "messages/feverless.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/feverless/data.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::actors {

namespace {

namespace fv = protocols::feverless;
namespace session = protocols::session;
namespace fvl = messages::fvl;
using session::errc;

/// Loaded data: labels in the datasets' label vectors, NaN where the cell
/// was empty (another client's row).
struct client_state : data_party_state<feverless_client_spec> {
  static inline const char* name = "veil.feverless_client";

  std::optional<protocols::crypto::identity> identity;
  std::unique_ptr<fv::client> role;
  learners::dataset eval;     ///< this client's columns of the rows to predict
  bool export_splits = false; ///< the roster's: send the splits with the model
  bool restored = false;      ///< the role comes from a saved part
  int trees = 0;              ///< the roster's: trees to train
  /// Round by round (params::rounds_evaluated): this pause between trees
  /// was reported to the coordinator.
  bool pause_reported = false;
  bool staged_sent = false; ///< see add_staged
  noise_filler filler;      ///< fills the role's noise reserve while training

  bool has_role() const { return role != nullptr; }
};

using client_actor = caf::stateful_actor<client_state>;

void abort(client_actor* self, errc code, std::string message) {
  self->quit(session_error(code, std::move(message)));
}

session::trained make_trained(const client_state& st) {
  session::trained t;
  const auto& r = *st.role;
  // The public model is the same on every client: client 0's is reported,
  // the others do not send n - 1 more copies.
  if (st.index == 0)
    t.model = r.model();
  t.own_splits = r.own_splits().size();
  t.seconds = seconds_since(st.started);
  t.report = messages::pack(fv::report_of(*st.role, st.export_splits));
  return t;
}

caf::result<fvl::eval_labels> on_labels(client_actor* self) {
  const auto& st = self->state;
  // Test labels go to this session's coordinator only, for the metrics of
  // a finished prediction (or of every round, when it evaluates them); a
  // peer or a stranger gets nothing.
  if (!st.coordinator ||
      caf::actor_cast<caf::actor_addr>(self->current_sender()) !=
          st.coordinator.address() ||
      !st.role ||
      !(st.role->training_done() || st.role->pauses_between_trees()))
    return session_error(errc::bad_request,
                         st.me + ": test labels go to the session's "
                                 "coordinator after training only (or "
                                 "before, to evaluate every round)");
  const auto& ld = st.loaded;
  fvl::eval_labels out;
  if (!ld.test_loaded)
    return out;
  const auto& y = ld.test.labels();
  for (std::size_t i = 0; i < y.size(); ++i)
    if (!std::isnan(y[i])) {
      out.rows.push_back(static_cast<std::uint32_t>(i));
      out.labels.push_back(y[i]);
    }
  return out;
}

/// A FEVERLESS client on the shared role host (actors/role_host.hpp).
struct client_hooks {
  using state = client_state;
  using spec = feverless_client_spec;
  using settings = fvl::roster_settings;
  using message = fv::message;
  using failure = fv::failure;

  static void init(client_actor* self) {
    auto& st = self->state;
    st.identity = fv::client_identity(st.test_seed, st.seed_index);
  }
  /// Its rows, labels checked: 0, 1, or empty (another client's row).
  static caf::result<session::data_summary> load(client_actor* self,
                                                 session::load_request& r) {
    auto& st = self->state;
    auto s =
        load_party_data(st.me, st.host, r, st.loaded, fv::read_client_rows);
    if (!s)
      return std::move(s.error());
    s->has_labels = s->labels > 0; // an empty label column holds none
    return std::move(*s);
  }
  static caf::result<caf::ok_atom> join(client_actor* self,
                                        const session::roster& base,
                                        const fvl::roster_settings& r,
                                        const std::vector<caf::actor>& peers,
                                        std::int32_t at) {
    auto& st = self->state;
    auto n = peers.size();
    bool predicting_only = !st.given && !st.loaded.train_loaded;
    if (r.keys.size() != 32 * n && !(predicting_only && r.keys.empty()))
      return session_error(errc::bad_request, st.me + ": malformed roster");
    if (predicting_only) {
      // A prediction session: the role comes from the model part.
      st.join(self, base, peers, at);
      return caf::ok_atom::value;
    }
    r.params.validate(); // throws: bad input (host_roster)
    st.join(self, base, peers, at);
    st.export_splits = r.export_splits;
    st.trees = r.params.trees;
    const auto& p = r.params;
    std::optional<fv::credentials> creds;
    if (p.protocol == fv::mode::feverless || p.protocol == fv::mode::ahe) {
      fv::credentials c{std::move(*st.identity), {}};
      for (std::size_t q = 0; q < n; ++q) {
        protocols::crypto::public_key k;
        std::copy_n(r.keys.begin() + static_cast<std::ptrdiff_t>(32 * q), 32,
                    k.begin());
        c.keys.push_back(k);
      }
      st.identity.reset();
      creds = std::move(c);
    }
    auto rng = fv::client_random(st.test_seed, st.index);
    auto spec = st.given
                    ? std::move(*st.given)
                    : fv::client_from_loaded(
                          std::move(st.loaded.train),
                          st.loaded.test_loaded ? &st.loaded.test : nullptr);
    st.given.reset();
    st.role = std::make_unique<fv::client>(
        p, st.index, static_cast<std::int32_t>(n), std::move(spec.features),
        std::move(spec.labels), std::move(creds), std::move(rng));
    st.eval = std::move(spec.eval);
    if (st.eval.rows() > 0)
      st.role->set_predict_data(st.eval);
    st.role->pause_between_trees(p.rounds_evaluated);
    return caf::ok_atom::value;
  }
  static void train(client_actor* self) {
    auto& st = self->state;
    if (!st.role || st.training || st.role->training_done()) {
      abort(self, errc::bad_request,
            st.me + ": train before the roster, or a second time");
      return;
    }
    st.started = clock_type::now();
    st.training = true;
    auto out = st.role->start();
    // The silence clock starts after its own work (Paillier keys, say).
    st.last_heard = now_of(self);
    if (!out) {
      abort(self, errc::protocol_error,
            st.me + " could not start at step " + out.error().step + ": " +
                out.error().reason);
      return;
    }
    route(self, std::move(*out));
    if (has_quit(self))
      return;
    after_step(self);
    keep_watch(self);
  }
  static void predict(client_actor* self) {
    auto& st = self->state;
    if (!st.role || !st.role->training_done() || st.predicting) {
      abort(self, errc::bad_request, st.me + ": predict before training ended");
      return;
    }
    begin_work(
        self, &peer_state::predicting,
        [&] { return st.role->start_predict(st.eval); }, after_step);
  }
  static auto on_message(client_actor* self, std::int32_t from,
                         fv::message& m) {
    // The role keeps what it is handed (query batches are megabytes).
    return self->state.role->on_message(from, std::move(m));
  }
  /// What the client computes once its LEAD or NOTIFY is out (its parts of
  /// the sums, its masks: has_deferred_work).
  static auto resume(client_actor* self) {
    auto& role = *self->state.role;
    return role.has_deferred_work() ? std::optional{role.resume()}
                                    : std::nullopt;
  }
  /// Reports finished work to the coordinator.
  static void after_step(client_actor* self) {
    auto& st = self->state;
    if (st.role->training_done())
      st.filler.stop();
    else
      st.filler.start(st.role->noise_reserve()); // once the noise is fixed
    if (st.role->between_trees() && !st.pause_reported) {
      // Round by round: the coordinator evaluates, then says next or stop
      // (it reports the progress, with the round's metrics).
      st.pause_reported = true;
      session::round_done r;
      r.trees = static_cast<std::int32_t>(st.role->trees_done());
      r.bytes = bytes_so_far(st.bytes);
      self->send(st.coordinator, r);
    } else if (st.training && st.index == 0 &&
               !st.role->pauses_between_trees()) {
      // The clients train in lockstep: client 0 speaks for them.
      report_progress(self, st.role->model().trees.size(),
                      static_cast<std::size_t>(st.trees));
    }
    report_finished(
        self, *st.role, [&] { return make_trained(st); },
        [&](session::predicted& out) {
          if (!st.role->between_trees()) // not a round's evaluation
            add_staged(st, *st.role, out);
        });
  }
  /// Round by round: the next tree, or the end keeping the best trees.
  static void next_tree(client_actor* self) {
    auto& st = self->state;
    if (!obeys(self, "next tree"))
      return;
    if (!st.role || !st.role->between_trees()) {
      abort(self, errc::bad_request,
            st.me + ": next tree while not between trees");
      return;
    }
    st.pause_reported = false;
    auto out = st.role->next_tree();
    if (!out) {
      abort(self, errc::protocol_error,
            st.me + " at step " + out.error().step + ": " + out.error().reason);
      return;
    }
    route(self, std::move(*out));
    if (!has_quit(self))
      after_step(self);
  }
  static void stop_training(client_actor* self, std::int32_t keep) {
    auto& st = self->state;
    if (!obeys(self, "stop"))
      return;
    if (!st.role || !st.role->between_trees() || keep < 0) {
      abort(self, errc::bad_request, st.me + ": stop while not between trees");
      return;
    }
    st.role->stop_training(static_cast<std::size_t>(keep));
    after_step(self);
  }
  /// Round by round: client 0 predicts the last tree on its eval rows.
  static void predict_round(client_actor* self, std::int32_t first) {
    auto& st = self->state;
    if (!obeys(self, "round prediction"))
      return;
    if (!st.role || !st.role->between_trees() || st.predicting || first < 0) {
      abort(self, errc::bad_request,
            st.me + ": a round's prediction while not between trees");
      return;
    }
    begin_work(
        self, &peer_state::predicting,
        [&] {
          return st.role->start_predict(st.eval,
                                        static_cast<std::size_t>(first));
        },
        after_step);
  }
  /// Saves this client's split table where it runs.
  static caf::result<std::uint64_t> save_part(client_actor* self,
                                              session::part_request& r) {
    auto& st = self->state;
    if (st.restored || !st.role || !st.role->training_done())
      return session_error(errc::bad_request,
                           st.me + ": save a model part after training only");
    auto t = session::export_splits(st.me, st.role->own_splits(),
                                    st.role->feature_names());
    session::save_split_table(t, r.model_id, r.path);
    return std::uint64_t{t.splits.size()};
  }
  /// Restores this client's split table (with the public model) for a
  /// prediction session over its test rows.
  static caf::result<std::uint64_t> restore_part(client_actor* self,
                                                 session::part_request& r) {
    auto& st = self->state;
    if (st.role || st.index < 0 || !st.loaded.test_loaded)
      return session_error(errc::bad_request,
                           st.me + ": " + restore_precondition);
    auto part = session::load_split_table(r.path, st.me, r.model_id);
    auto splits = session::import_splits<fv::split_table>(
        part, st.loaded.test.feature_names(), r.path,
        [](std::int32_t f, const auto& e) {
          return fv::owned_split{f, 0, e.threshold, e.default_left};
        });
    auto eval = st.loaded.test; // keeps its labels for labels_atom
    eval.labels().clear();
    st.role = fv::client::restored(
        st.index, static_cast<std::int32_t>(st.neighbours.size() + 1),
        std::move(r.model), std::move(splits), eval);
    st.eval = std::move(eval);
    st.restored = true;
    keep_watch(self); // it answers the others' queries from now on
    return std::uint64_t{part.splits.size()};
  }
  /// The identity keys and the test labels, FEVERLESS's own steps.
  static caf::message_handler extra(client_actor* self) {
    return {
        [=](messages::keys_atom) {
          return fvl::identity_key{
              self->state.identity ? self->state.identity->public_key_bytes()
                                   : protocols::crypto::public_key{}};
        },
        [=](messages::labels_atom) { return on_labels(self); },
        [=](messages::next_atom) { next_tree(self); },
        [=](messages::stop_atom, std::int32_t keep) {
          stop_training(self, keep);
        },
        [=](messages::predict_atom, std::int32_t first) {
          predict_round(self, first);
        },
    };
  }
};

// -- the driver
// ----------------------------------------------------------------

using driver = session_driver<feverless_outcome>;

/// Label counts are public (key announcements carry them): that they add
/// up (`loaded`: the parties' rows); which rows they are stays with the
/// clients. Empty if they do.
std::string label_count_error(driver& d,
                              const std::vector<session::data_summary>& loaded,
                              const char* what) {
  std::uint64_t sum = 0;
  std::string each;
  for (std::size_t c = 0; c < loaded.size(); ++c) {
    sum += loaded[c].labels;
    each +=
        (c ? ", " : "") + d.name(c) + " " + std::to_string(loaded[c].labels);
  }
  if (loaded.empty() || sum == loaded[0].rows)
    return {};
  return "the parties hold " + std::to_string(sum) + " labels for " +
         std::to_string(loaded[0].rows) + " " + what + " rows (" + each +
         "): every row's label must be held by exactly one party; in a "
         "party's file an empty label cell marks another party's row";
}

/// Loads and aligns the clients' data (a prediction session's: the rows to
/// predict only, with labels on some clients or on none).
void load_data(driver& d, const feverless_run& run, feverless_result& result) {
  std::vector<session::data_summary> train, test;
  d.load_rows(run, train, test, [&](const auto& train, const auto& test) {
    std::uint64_t held = 0;
    for (const auto& s : test)
      held += s.labels;
    result.labelled = !run.restore || held > 0;
    auto msg = label_count_error(d, train, "training");
    return !msg.empty() || !result.labelled
               ? msg
               : label_count_error(d, test, "test");
  });
  if (!d.error)
    note_rows(result, train, test);
}

/// Gathers the clients' labels of the test rows; each row must have one.
void gather_labels(driver& d, feverless_result& result) {
  constexpr auto none = std::numeric_limits<float>::quiet_NaN();
  result.labels.assign(result.test_rows, none);
  std::vector<std::int32_t> holder(result.test_rows, -1);
  d.ask_all<fvl::eval_labels>(
      "collect test labels",
      [](std::size_t) { return std::make_tuple(messages::labels_atom::value); },
      [&](std::size_t c, fvl::eval_labels& l) {
        for (std::size_t k = 0; k < l.rows.size() && !d.error; ++k) {
          auto i = l.rows[k];
          if (i >= holder.size() || k >= l.labels.size())
            return d.fail(errc::protocol_error,
                          d.name(c) + " sent a test label of row " +
                              std::to_string(i) + ", which is out of range");
          if (holder[i] >= 0)
            return d.fail(
                errc::bad_input,
                "test row " + std::to_string(i + 1) + " is labeled by both " +
                    d.name(static_cast<std::size_t>(holder[i])) + " and " +
                    d.name(c) + ": exactly one party may label a row");
          holder[i] = static_cast<std::int32_t>(c);
          result.labels[i] = l.labels[k];
        }
      });
  for (std::size_t i = 0; i < holder.size() && !d.error; ++i)
    if (holder[i] < 0)
      d.fail(errc::bad_input,
             "test row " + std::to_string(i + 1) + " is labeled by no party");
}

/// The roster every client gets (with the identity keys, none in a
/// prediction session): a mesh.
void hand_out_roster(driver& d, const feverless_run& run,
                     std::vector<std::uint8_t> keys) {
  d.hand_out_roster(run, -1,
                    fvl::roster_settings{std::move(keys), run.params,
                                         run.export_splits && !run.restore});
}

/// The split tables the clients sent with their models (export_splits).
void take_split_tables(driver& d, std::vector<fv::training_report>& done,
                       feverless_result& result) {
  for (std::size_t c = 0; c < done.size() && !d.error; ++c) {
    auto splits = fv::splits_of(done[c]);
    if (!splits)
      return d.fail(errc::protocol_error,
                    d.name(c) + " sent a split table whose fields differ in "
                                "length");
    result.parties[c].splits = std::move(*splits);
  }
}

} // namespace

template <>
struct session_hooks<feverless_protocol>
    : shared_session_hooks<feverless_protocol, client_hooks> {
  using run = feverless_run;
  static party_kind kind() { return feverless_party_kind(); }

  /// The run of either configuration (both carry the same settings).
  template <class Config>
  static run run_of(const Config& cfg) {
    run r(cfg);
    r.params = cfg.params;
    r.params.rounds_evaluated = r.early_stopping_rounds > 0;
    r.export_splits = cfg.export_splits;
    return r;
  }

  static void check(const run& r, std::size_t n) {
    check_actors("FEVERLESS", "clients", "labels spread over them", n,
                 r.names.size(), r.load.size(), r.timeout);
    r.params.validate();
    if (r.restore &&
        (r.load.empty() || r.parts.empty() || r.load[0].test_path.empty()))
      throw input_error("a prediction session needs the model parts and a "
                        "file of rows to predict per client");
  }

  /// Loads and aligns the clients' rows, exchanges the identity keys and
  /// hands out the roster; a prediction session's clients restore their
  /// parts (every client gets the public model) instead.
  static void open(driver& d, const run& r, feverless_result& result) {
    if (!r.load.empty())
      load_data(d, r, result);
    if (r.restore) {
      hand_out_roster(d, r, {});
      d.ask_parts(true, r.parts, [&](std::size_t, session::part_request& p) {
        p.model = *r.restore;
      });
      if (d.error)
        return;
      result.model = *r.restore;
      name_parties(result, r);
      return;
    }
    // Key c at offset 32 c, whatever order the replies come in.
    std::vector<std::uint8_t> keys(32 * d.size());
    d.ask_all<fvl::identity_key>(
        "exchange identity keys",
        [](std::size_t) { return std::make_tuple(messages::keys_atom::value); },
        [&](std::size_t c, fvl::identity_key& k) {
          std::copy(k.key.begin(), k.key.end(),
                    keys.begin() + static_cast<std::ptrdiff_t>(32 * c));
        });
    hand_out_roster(d, r, keys);
  }

  /// Every client trains and reports its model when done.
  static void train(driver& d, const run& r, feverless_result& result) {
    std::vector<fv::training_report> done;
    auto store = [&](std::size_t c, session::trained& t) {
      if (c == 0)
        result.model = std::move(t.model);
    };
    auto seconds = r.params.rounds_evaluated
                       ? train_by_rounds(d, r, result, done, store)
                       : d.train_step(d.all(), d.all(), done, store);
    if (d.error)
      return;
    result.train_seconds = seconds;
    result.privacy = done[0].privacy;
    name_parties(result, r);
    take_split_tables(d, done, result);
  }

  /// Early stopping: the coordinator, which holds the test labels (the
  /// caller's, or gathered from the clients first), evaluates every tree
  /// as client 0 predicts it, and keeps the best trees.
  template <class Store>
  static double
  train_by_rounds(driver& d, const run& r, feverless_result& result,
                  std::vector<fv::training_report>& done, Store store) {
    if (!r.load.empty())
      gather_labels(d, result);
    else
      result.labels = r.eval_labels;
    const auto& labels = result.labels;
    if (d.error)
      return 0;
    if (labels.empty()) {
      d.fail(errc::bad_input, "early stopping needs test rows with labels");
      return 0;
    }
    learners::round_watcher watch(
        learners::objective(learners::objective_kind::binary_logistic), labels,
        {0.0}, r.early_stopping_rounds, r.params.trees,
        learners::margin_sums::as_prediction);
    auto seconds = d.train_by_rounds(r.params.trees, done, watch, store);
    result.history = watch.history();
    result.early_stop = watch.outcome();
    return seconds;
  }

  /// Client 0 predicts federatedly; the clients' test labels are gathered
  /// for the metrics when they loaded their own.
  static void predict(driver& d, const run& r, feverless_result& result) {
    auto seconds = d.predict_step([&](session::predicted& p) {
      take_staged(d, p, result); // checked against the margins: first
      result.margins = std::move(p.margins);
    });
    if (d.error)
      return;
    result.predict_seconds = seconds;
    if (!r.load.empty() && result.labelled && result.labels.empty())
      gather_labels(d, result);
  }
};

template class live_session<feverless_protocol>;

caf::actor spawn_feverless_client(caf::actor_system& sys,
                                  feverless_client_spec spec,
                                  std::optional<std::uint64_t> test_seed,
                                  std::int32_t index) {
  return spawn_given<client_hooks>(sys, std::move(spec), test_seed, index);
}

feverless_outcome run_feverless_clients(caf::actor_system& sys,
                                        std::vector<caf::actor> clients,
                                        const feverless_run& run) {
  return run_on_actors<feverless_protocol>(sys, std::move(clients), run);
}

party_kind feverless_party_kind() {
  return kind_of<client_hooks>("feverless");
}

} // namespace veil::actors
