// The plain protocol's plug into live_session (actors/live_session.hpp):
// its session steps as functions on the shared driver. The parties load
// and align their own rows; party 0, the one with the label, trains and
// predicts (reporting its progress), the others answer it.

#include <algorithm>
#include <chrono>
#include <optional>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/alignment.hpp"
#include "actors/errors.hpp"
#include "actors/live_session_impl.hpp"
#include "actors/party.hpp"
#include "actors/support.hpp"
#include "learners/input_error.hpp"
#include "messages/plain.hpp"
#include "messages/session.hpp"

namespace veil::actors {

namespace {

namespace session = protocols::session;
using session::errc;
using driver = session_driver<session_outcome>;

/// A plain session as the driver runs it: the config with the active party
/// first, and what the shared steps read.
struct plain_run : session_run {
  using session_run::session_run;
  session_config cfg;
};

/// Which parties hold labels, and that test columns match training's;
/// empty if they do.
std::string check_columns(const plain_run& r,
                          const std::vector<session::data_summary>& train,
                          const std::vector<session::data_summary>& test) {
  const auto& names = r.names;
  if (r.restore) { // prediction: labels optional, on party 0 only
    for (std::size_t p = 1; p < test.size(); ++p)
      if (test[p].has_labels)
        return names[p] + " holds labels: only " + names[0] +
               ", the active party, may";
    return {};
  }
  for (std::size_t p = 0; p < train.size(); ++p) {
    bool want = p == 0;
    if (train[p].has_labels != want)
      return names[p] + (want ? " has no labels" : " holds labels") +
             ": exactly one party, the active one, holds the label column";
  }
  for (std::size_t p = 0; p < test.size(); ++p) {
    if (test[p].feature_names != train[p].feature_names)
      return names[p] + "'s test data has other feature columns than " +
             "its training data";
    if (p == 0 && !test[p].has_labels)
      return names[p] + "'s test data has no labels";
  }
  return {};
}

/// Has every party load its rows to predict: its test file, or its
/// training rows again (a prediction session: its data file).
void load_test(driver& d, const plain_run& r,
               std::vector<session::data_summary>& test) {
  const auto& cfg = r.cfg;
  test.assign(d.size(), {});
  d.ask_all<session::data_summary>(
      "load test data",
      [&](std::size_t c) {
        session::load_request q;
        q.test = true;
        q.same_as_train = cfg.eval == evaluation::train && !r.restore;
        q.labels_optional = r.restore.has_value();
        q.data = cfg.parties[c].data;
        if (cfg.eval == evaluation::test)
          q.data.path = cfg.parties[c].test_path;
        return std::make_tuple(messages::load_atom::value, std::move(q));
      },
      [&](std::size_t c, session::data_summary& s) { test[c] = std::move(s); });
}

/// Aligns the loaded rows on the id column (or checks them by position)
/// and notes the rows and columns in the result.
void align(driver& d, const plain_run& r,
           std::vector<session::data_summary>& train,
           std::vector<session::data_summary>& test,
           session::session_result& result) {
  d.align_loaded(train, test, !r.cfg.parties[0].data.id_column.empty(),
                 r.cfg.eval == evaluation::train && !r.restore);
  if (d.error)
    return;
  result.rows = train.empty() ? 0 : train[0].rows;
  result.test_rows = test.empty() ? 0 : test[0].rows;
  if (r.restore) {
    for (auto& s : test)
      result.features.push_back(std::move(s.feature_names));
    result.ids = std::move(test[0].ids); // party 0's order is the session's
  }
  for (auto& s : train)
    result.features.push_back(std::move(s.feature_names));
}

/// Waits for party 0's answer to a train or predict request: no request
/// timeout (training takes as long as it takes), but its progress reports
/// must come within twice the timeout, and every party is monitored (the
/// active party applies the timeout to each passive party's answers).
template <class Reply, class Store>
void await_active(driver& d, const plain_run& r, Store store) {
  d.progress_bound = 2 * r.timeout;
  d.await_each<Reply>({0}, store);
  d.progress_bound.reset();
}

} // namespace

template <>
struct session_hooks<plain_protocol> {
  using run = plain_run;
  static party_kind kind() { return plain_party_kind(); }

  static run run_of(const session_config& cfg) {
    auto ordered = active_first(cfg); // party 0 is the one with the label
    run r(ordered);
    r.cfg = std::move(ordered);
    r.predict = cfg.eval != evaluation::none;
    return r;
  }

  static void check(const run& r, std::size_t n) {
    if (n != r.names.size())
      throw input_error("the session has " + std::to_string(r.names.size()) +
                        " party specs but " + std::to_string(n) +
                        " party actors");
    validate(r.cfg);
  }

  /// Loads and aligns every party's rows and hands out the roster; in a
  /// prediction session the active party restores the model, every other
  /// party its part.
  static void open(driver& d, const run& r, session::session_result& result) {
    auto t0 = clock_type::now();
    result.names = r.names;
    std::vector<session::data_summary> train, test;
    if (!r.restore) { // a prediction session loads the rows to predict
      train.assign(d.size(), {});
      d.load_all<session::data_summary>(
          false, r.cfg.parties, [&](std::size_t c, session::data_summary& s) {
            train[c] = std::move(s);
          });
    }
    if (r.cfg.eval != evaluation::none)
      load_test(d, r, test);
    if (d.error)
      return;
    if (auto msg = check_columns(r, train, test); !msg.empty())
      return d.fail(errc::bad_input, msg);
    align(d, r, train, test, result);
    // One roster for all (each party finds itself in it): a star around
    // the active party.
    d.hand_out_roster(r, 0,
                      protocols::plain::roster_settings{
                          r.cfg.params, r.cfg.exchange, r.cfg.masking});
    result.load_seconds = seconds_since(t0);
    if (!r.restore)
      return;
    d.ask_parts(true, r.parts, [&](std::size_t c, session::part_request& p) {
      if (c == 0)
        p.model = *r.restore;
    });
    if (!d.error)
      result.model = *r.restore;
  }

  static void train(driver& d, const run& r, session::session_result& result) {
    d.step = "train";
    d.self->send(d.parties[0], messages::train_atom::value);
    await_active<session::trained>(d, r,
                                   [&](std::size_t, session::trained& out) {
                                     result.model = std::move(out.model);
                                     result.train_seconds = out.seconds;
                                     result.bin_seconds = out.prepare_seconds;
                                     result.history = std::move(out.history);
                                     result.early_stop = out.early_stop;
                                     result.report = std::move(out.report);
                                   });
  }

  static void predict(driver& d, const run& r,
                      session::session_result& result) {
    d.step = "predict";
    d.self->send(d.parties[0], messages::predict_atom::value);
    await_active<session::predicted>(
        d, r, [&](std::size_t, session::predicted& out) {
          result.metrics_on = r.cfg.eval == evaluation::test ? "test" : "train";
          result.margins = std::move(out.margins);
          result.metric_names = std::move(out.metric_names);
          result.metric_values = std::move(out.metric_values);
          result.predict_seconds = out.seconds;
        });
  }

  /// The split tables, when the caller asked for them (an explicit
  /// export: the report says so).
  static void collect(driver& d, const run& r,
                      session::session_result& result) {
    result.splits.assign(d.size(), {});
    if (!r.cfg.export_splits)
      return;
    d.ask_all<session::split_export>(
        "collect split tables",
        [](std::size_t) {
          return std::make_tuple(messages::splits_atom::value);
        },
        [&](std::size_t c, session::split_export& e) {
          // Early stopping kept the first trees; later splits are no part.
          auto kept = static_cast<std::int32_t>(result.model.trees.size());
          std::erase_if(e.splits, [&](const session::split_entry& x) {
            return x.tree >= kept;
          });
          result.splits[c] = std::move(e);
        });
  }

  static void store_bytes(session::session_result& result, const run& r,
                          std::size_t c, session::byte_stats& b) {
    result.bytes.resize(r.names.size());
    result.bytes[c] = std::move(b);
  }
};

template class live_session<plain_protocol>;

session_outcome run_session(caf::actor_system& sys,
                            const std::vector<caf::actor>& parties,
                            const session_config& cfg,
                            const progress_fn& on_progress) {
  auto run = session_hooks<plain_protocol>::run_of(cfg);
  // The handles in the run's order: the labelled party first.
  std::vector<caf::actor> handles;
  if (parties.size() == cfg.parties.size())
    for (const auto& spec : run.cfg.parties)
      for (std::size_t i = 0; i < cfg.parties.size(); ++i)
        if (cfg.parties[i].name == spec.name)
          handles.push_back(parties[i]);
  if (handles.size() != parties.size()) { // a config the check refuses
    handles.clear();
    handles = parties;
  }
  return run_on_actors<plain_protocol>(sys, std::move(handles), std::move(run),
                                       on_progress);
}

} // namespace veil::actors
