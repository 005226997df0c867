#include "actors/coordinator.hpp"

#include <algorithm>
#include <chrono>
#include <optional>

#include <caf/actor_system.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/alignment.hpp"
#include "actors/errors.hpp"
#include "actors/support.hpp"
#include "learners/input_error.hpp"
#include "messages/plain.hpp"
#include "messages/session.hpp"
#include "protocols/session/model_file.hpp"

namespace veil::actors {

namespace {

namespace session = protocols::session;
using session::errc;
using namespace std::chrono_literals;

struct coordinator_state {
  static inline const char* name = "veil.coordinator";

  session_config cfg;
  std::vector<party_actor> parties;
  caf::actor listener;

  bool started = false;
  bool finished = false;
  std::string step = "start";
  std::size_t pending = 0;

  std::vector<session::data_summary> train_data;
  std::vector<session::data_summary> test_data;
  row_orders train_orders;
  row_orders test_orders;
  session::session_result result;
  clock_type::time_point run_start;

  // Liveness of the active party while it trains or predicts.
  bool watching = false;
  bool ticking = false;
  clock_type::time_point last_progress;
  std::int32_t trees_done = 0;
  std::int32_t trees_total = 0;
  /// A passive party ended while the active party was training: the active
  /// party reports it with the protocol step; this is the fallback.
  std::optional<std::string> pending_down;
  clock_type::time_point down_since;

  const std::string& name_of(std::size_t i) const {
    return cfg.parties[i].name;
  }

  std::int32_t index_of(const caf::actor_addr& addr) const {
    for (std::size_t i = 0; i < parties.size(); ++i)
      if (parties[i].address() == addr)
        return static_cast<std::int32_t>(i);
    return -1;
  }

  std::string step_text() const {
    if (step == "train" && trees_total > 0)
      return "train (" + std::to_string(trees_done) + " of " +
             std::to_string(trees_total) + " trees done)";
    return step;
  }
};

using coordinator_pointer =
    coordinator_actor::stateful_pointer<coordinator_state>;

void shutdown(coordinator_pointer self, const caf::error& reason) {
  for (auto& p : self->state.parties)
    if (reason)
      self->send_exit(p, reason);
    else
      self->send_exit(p, caf::exit_reason::user_shutdown);
  self->quit();
}

/// Ends the session: tells the listener why, stops every party.
void fail(coordinator_pointer self, errc code, std::string message) {
  auto& st = self->state;
  if (st.finished)
    return;
  st.finished = true;
  caf::anon_send(st.listener, session::session_failure{code, message});
  shutdown(self, session_error(code, std::move(message)));
}

/// A request to party `i` failed.
void fail_request(coordinator_pointer self, std::size_t i,
                  const caf::error& err) {
  auto& st = self->state;
  // The party is gone: its down message (every party is monitored) follows
  // with the reason it ended, which names the step; wait for that.
  if (err == caf::sec::request_receiver_down)
    return;
  if (err.category() == caf::atom("veil"))
    fail(self, code_of(err), describe(err));
  else if (err == caf::sec::request_timeout)
    fail(self, errc::timeout,
         st.name_of(i) + " did not answer within " +
             seconds_text(st.cfg.timeout) + " at step " + st.step_text());
  else
    fail(self, errc::party_down,
         st.name_of(i) + " ended at step " + st.step_text() + " (" +
             describe(err) + ")");
}

/// Sends one request per target (made by `send(i)`); `on_reply(i, reply)`
/// for each answer, then `done()` once all have answered.
template <class Reply, class Send, class OnReply, class Done>
void ask(coordinator_pointer self, std::string step,
         std::vector<std::size_t> targets, Send send, OnReply on_reply,
         Done done) {
  auto& st = self->state;
  st.step = std::move(step);
  if (targets.empty()) {
    done();
    return;
  }
  st.pending = targets.size();
  for (auto i : targets)
    send(i).then(
        [=](Reply& reply) mutable {
          auto& st = self->state;
          if (st.finished)
            return;
          on_reply(i, reply);
          if (st.finished)
            return;
          if (--st.pending == 0)
            done();
        },
        [=](caf::error& err) { fail_request(self, i, err); });
}

std::vector<std::size_t> all_parties(coordinator_pointer self) {
  std::vector<std::size_t> v(self->state.parties.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = i;
  return v;
}

/// align_rows for this session's parties.
std::string align_rows(coordinator_pointer self,
                       const std::vector<session::data_summary>& s,
                       const char* what, row_orders& orders) {
  auto& st = self->state;
  std::vector<std::string> names;
  for (const auto& p : st.cfg.parties)
    names.push_back(p.name);
  return actors::align_rows(names, s, !st.cfg.parties[0].data.id_column.empty(),
                            what, orders);
}

/// Checks which parties hold labels and that test columns match training's.
std::string check_columns(coordinator_pointer self) {
  auto& st = self->state;
  if (st.cfg.restore) { // prediction: labels optional, on party 0 only
    for (std::size_t p = 1; p < st.test_data.size(); ++p)
      if (st.test_data[p].has_labels)
        return st.name_of(p) + " holds labels: only " + st.name_of(0) +
               ", the active party, may";
    return {};
  }
  for (std::size_t p = 0; p < st.train_data.size(); ++p) {
    bool want = p == 0;
    if (st.train_data[p].has_labels != want)
      return st.name_of(p) + (want ? " has no labels" : " holds labels") +
             ": exactly one party, the active one, holds the label column";
  }
  if (st.test_data.empty())
    return {};
  for (std::size_t p = 0; p < st.test_data.size(); ++p) {
    if (st.test_data[p].feature_names != st.train_data[p].feature_names)
      return st.name_of(p) + "'s test data has other feature columns than " +
             "its training data";
    if (p == 0 && !st.test_data[p].has_labels)
      return st.name_of(p) + "'s test data has no labels";
  }
  return {};
}

void run_collect(coordinator_pointer self);
void run_predict(coordinator_pointer self);
void run_train(coordinator_pointer self);
void run_restore(coordinator_pointer self);
void run_save(coordinator_pointer self);

void arm_ticks(coordinator_pointer self) {
  auto& st = self->state;
  if (st.ticking)
    return;
  st.ticking = true;
  self->delayed_send(caf::actor_cast<coordinator_actor>(self),
                     tick_period(st.cfg.timeout), messages::tick_atom::value,
                     std::uint64_t{0});
}

void watch_active(coordinator_pointer self) {
  auto& st = self->state;
  st.watching = true;
  st.last_progress = clock_type::now();
  arm_ticks(self);
}

void on_tick(coordinator_pointer self) {
  auto& st = self->state;
  st.ticking = false;
  if (st.finished || !st.watching)
    return;
  auto now = clock_type::now();
  if (st.pending_down && now - st.down_since > st.cfg.timeout) {
    fail(self, errc::party_down, *st.pending_down);
    return;
  }
  if (now - st.last_progress > 2 * st.cfg.timeout) {
    fail(self, errc::timeout,
         st.name_of(0) + " (the active party) reported no progress within " +
             seconds_text(2 * st.cfg.timeout) + " at step " + st.step_text());
    return;
  }
  arm_ticks(self);
}

void run_roster(coordinator_pointer self) {
  auto& st = self->state;
  session::roster base;
  for (const auto& p : st.cfg.parties)
    base.names.push_back(p.name);
  base.timeout_ms = st.cfg.timeout.count();
  base.link = st.cfg.link;
  std::vector<caf::actor> peers;
  for (auto& p : st.parties)
    peers.push_back(caf::actor_cast<caf::actor>(p));
  ask<caf::ok_atom>(
      self, "peers", all_parties(self),
      [=](std::size_t i) {
        auto r = base;
        r.self = static_cast<std::int32_t>(i);
        return self->request(self->state.parties[i], self->state.cfg.timeout,
                             messages::peers_atom::value, std::move(r), peers);
      },
      [](std::size_t, caf::ok_atom) {},
      [=] {
        self->state.result.load_seconds = seconds_since(self->state.run_start);
        if (self->state.cfg.restore)
          run_restore(self);
        else
          run_train(self);
      });
}

void run_align(coordinator_pointer self) {
  auto& st = self->state;
  // One request per party and data set whose rows move.
  struct job {
    std::size_t party;
    bool test;
  };
  std::vector<job> jobs;
  for (std::size_t p = 0; p < st.parties.size(); ++p) {
    if (!st.train_orders.empty() && !st.train_orders[p].empty())
      jobs.push_back({p, false});
    if (!st.test_orders.empty() && !st.test_orders[p].empty())
      jobs.push_back({p, true});
  }
  st.step = "align";
  if (jobs.empty()) {
    run_roster(self);
    return;
  }
  st.pending = jobs.size();
  for (const auto& j : jobs) {
    auto& order = j.test ? st.test_orders[j.party] : st.train_orders[j.party];
    auto expected = order.size();
    self->request(st.parties[j.party], st.cfg.timeout,
                  messages::align_atom::value,
                  session::align_request{j.test, std::move(order)})
        .then(
            [=](std::uint64_t rows) {
              auto& st = self->state;
              if (st.finished)
                return;
              if (rows != expected) {
                fail(self, errc::protocol_error,
                     st.name_of(j.party) + " has " + std::to_string(rows) +
                         " rows after alignment, expected " +
                         std::to_string(expected));
                return;
              }
              if (--st.pending == 0)
                run_roster(self);
            },
            [=](caf::error& err) { fail_request(self, j.party, err); });
  }
}

void after_load(coordinator_pointer self) {
  auto& st = self->state;
  if (auto msg = check_columns(self); !msg.empty()) {
    fail(self, errc::bad_input, msg);
    return;
  }
  if (!st.cfg.restore)
    if (auto msg = align_rows(self, st.train_data, "training", st.train_orders);
        !msg.empty()) {
      fail(self, errc::bad_input, msg);
      return;
    }
  if (st.cfg.eval == evaluation::train && !st.cfg.restore) // same rows
    st.test_orders = st.train_orders;
  else if (!st.test_data.empty())
    if (auto msg = align_rows(self, st.test_data, "test", st.test_orders);
        !msg.empty()) {
      fail(self, errc::bad_input, msg);
      return;
    }
  st.result.rows = st.train_data.empty() ? 0 : st.train_data[0].rows;
  st.result.test_rows = st.test_data.empty() ? 0 : st.test_data[0].rows;
  if (st.cfg.restore) {
    for (auto& s : st.test_data)
      st.result.features.push_back(s.feature_names);
    st.result.ids = st.test_data[0].ids; // party 0's order is the session's
  }
  for (auto& s : st.train_data) {
    st.result.features.push_back(s.feature_names);
    std::vector<std::string>().swap(s.ids);
  }
  for (auto& s : st.test_data)
    std::vector<std::string>().swap(s.ids);
  run_align(self);
}

void run_load_test(coordinator_pointer self) {
  auto& st = self->state;
  if (st.cfg.eval == evaluation::none) {
    after_load(self);
    return;
  }
  st.test_data.assign(st.parties.size(), {});
  ask<session::data_summary>(
      self, "load test data", all_parties(self),
      [=](std::size_t i) {
        auto& st = self->state;
        session::load_request r;
        r.test = true;
        // A prediction session has no training rows: it reads the data
        // file itself when asked to predict on the training rows.
        r.same_as_train = st.cfg.eval == evaluation::train && !st.cfg.restore;
        r.data = st.cfg.parties[i].data;
        if (st.cfg.eval == evaluation::test)
          r.data.path = st.cfg.parties[i].test_path;
        return self->request(st.parties[i], st.cfg.timeout,
                             messages::load_atom::value, std::move(r));
      },
      [=](std::size_t i, session::data_summary& s) {
        self->state.test_data[i] = std::move(s);
      },
      [=] { after_load(self); });
}

void run_load(coordinator_pointer self) {
  auto& st = self->state;
  if (st.cfg.restore) { // a prediction session loads the rows to predict
    run_load_test(self);
    return;
  }
  st.train_data.assign(st.parties.size(), {});
  ask<session::data_summary>(
      self, "load training data", all_parties(self),
      [=](std::size_t i) {
        auto& st = self->state;
        return self->request(
            st.parties[i], st.cfg.timeout, messages::load_atom::value,
            session::load_request{false, false, st.cfg.parties[i].data});
      },
      [=](std::size_t i, session::data_summary& s) {
        self->state.train_data[i] = std::move(s);
      },
      [=] { run_load_test(self); });
}

void run_train(coordinator_pointer self) {
  auto& st = self->state;
  st.step = "train";
  watch_active(self);
  // No request timeout: training takes as long as it takes. Liveness is
  // the progress watchdog (on_tick) plus the monitor on every party; the
  // active party applies the timeout to each passive party's answers.
  self->request(st.parties[0], caf::infinite, messages::train_atom::value,
                session::train_request{st.cfg.params})
      .then(
          [=](session::training_outcome& out) {
            auto& st = self->state;
            if (st.finished)
              return;
            st.watching = false;
            st.result.model = std::move(out.model);
            st.result.train_seconds = out.train_seconds;
            st.result.bin_seconds = out.bin_seconds;
            if (st.cfg.eval == evaluation::none)
              run_save(self);
            else
              run_predict(self);
          },
          [=](caf::error& err) { fail_request(self, 0, err); });
}

void run_restore(coordinator_pointer self) {
  auto& st = self->state;
  st.result.model = *st.cfg.restore;
  ask<std::uint64_t>(
      self, "restore model parts", all_parties(self),
      [=](std::size_t i) {
        auto& st = self->state;
        session::part_request r;
        r.save = false;
        r.path = session::part_path(st.cfg.parts.path, st.name_of(i));
        r.model_id = st.cfg.parts.id;
        if (i == 0)
          r.model = *st.cfg.restore;
        return self->request(st.parties[i], st.cfg.timeout,
                             messages::part_atom::value, std::move(r));
      },
      [](std::size_t, std::uint64_t) {}, [=] { run_predict(self); });
}

/// Each party keeps its part of the trained model where it runs.
void run_save(coordinator_pointer self) {
  auto& st = self->state;
  ask<std::uint64_t>(
      self, "save model parts",
      st.cfg.parts.empty() || st.cfg.restore ? std::vector<std::size_t>{}
                                             : all_parties(self),
      [=](std::size_t i) {
        auto& st = self->state;
        session::part_request r;
        r.path = session::part_path(st.cfg.parts.path, st.name_of(i));
        r.model_id = st.cfg.parts.id;
        return self->request(st.parties[i], st.cfg.timeout,
                             messages::part_atom::value, std::move(r));
      },
      [](std::size_t, std::uint64_t) {}, [=] { run_collect(self); });
}

void run_predict(coordinator_pointer self) {
  auto& st = self->state;
  st.step = "predict";
  watch_active(self);
  self->request(st.parties[0], caf::infinite, messages::predict_atom::value,
                session::predict_request{st.cfg.params.threads})
      .then(
          [=](session::prediction& out) {
            auto& st = self->state;
            if (st.finished)
              return;
            st.watching = false;
            st.result.metrics_on =
                st.cfg.eval == evaluation::test ? "test" : "train";
            st.result.margins = std::move(out.margins);
            st.result.metric_names = std::move(out.metric_names);
            st.result.metric_values = std::move(out.metric_values);
            st.result.predict_seconds = out.predict_seconds;
            run_save(self);
          },
          [=](caf::error& err) { fail_request(self, 0, err); });
}

void finish(coordinator_pointer self) {
  auto& st = self->state;
  if (st.finished)
    return;
  st.finished = true;
  for (const auto& p : st.cfg.parties)
    st.result.names.push_back(p.name);
  caf::anon_send(st.listener, std::move(st.result));
  shutdown(self, caf::error{});
}

void run_collect(coordinator_pointer self) {
  auto& st = self->state;
  st.result.splits.assign(st.parties.size(), {});
  st.result.bytes.assign(st.parties.size(), {});
  // The split tables only when the caller asked for them.
  ask<session::split_export>(
      self, "collect split tables",
      st.cfg.export_splits ? all_parties(self) : std::vector<std::size_t>{},
      [=](std::size_t i) {
        auto& st = self->state;
        return self->request(st.parties[i], st.cfg.timeout,
                             messages::splits_atom::value);
      },
      [=](std::size_t i, session::split_export& e) {
        self->state.result.splits[i] = std::move(e);
      },
      [=] {
        ask<session::byte_stats>(
            self, "collect byte counts", all_parties(self),
            [=](std::size_t i) {
              auto& st = self->state;
              return self->request(st.parties[i], st.cfg.timeout,
                                   messages::stats_atom::value);
            },
            [=](std::size_t i, session::byte_stats& b) {
              self->state.result.bytes[i] = std::move(b);
            },
            [=] { finish(self); });
      });
}

coordinator_actor::behavior_type
coordinator_impl(coordinator_pointer self, std::vector<party_actor> parties,
                 session_config cfg, caf::actor listener) {
  auto& st = self->state;
  st.parties = std::move(parties);
  st.cfg = std::move(cfg);
  st.listener = std::move(listener);
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& st = self->state;
    auto i = st.index_of(dm.source);
    if (i < 0 || st.finished)
      return;
    auto p = static_cast<std::size_t>(i);
    if (dm.reason.category() == caf::atom("veil")) {
      fail(self, code_of(dm.reason), describe(dm.reason));
      return;
    }
    auto msg = st.name_of(p) + " ended at step " + st.step_text() + " (" +
               describe(dm.reason) + ")";
    if (st.watching && p != 0) {
      // The active party monitors it too and names the protocol step.
      if (!st.pending_down) {
        st.pending_down = msg;
        st.down_since = clock_type::now();
      }
      return;
    }
    fail(self, errc::party_down, msg);
  });
  self->set_default_handler([=](caf::scheduled_actor*, caf::message_view& x)
                                -> caf::result<caf::message> {
    auto& st = self->state;
    auto what = unexpected_text(x.copy_content_to_message());
    auto sender = self->current_sender();
    std::string from = "an anonymous sender";
    if (sender) {
      auto i = st.index_of(caf::actor_cast<caf::actor_addr>(sender));
      from = i >= 0
                 ? st.name_of(static_cast<std::size_t>(i))
                 : "actor " + std::to_string(sender->id()) + node_text(sender);
    }
    auto msg = "the coordinator got an unexpected message " + what + " from " +
               from + " at step " + st.step_text();
    fail(self, errc::protocol_error, msg);
    return session_error(errc::protocol_error, msg);
  });
  return {
      [=](messages::run_atom) {
        auto& st = self->state;
        if (st.started)
          return;
        st.started = true;
        st.run_start = clock_type::now();
        for (auto& p : st.parties)
          self->monitor(p);
        run_load(self);
      },
      [=](session::progress_report& p) {
        auto& st = self->state;
        if (st.finished || st.parties.empty() ||
            caf::actor_cast<caf::actor_addr>(self->current_sender()) !=
                st.parties[0].address())
          return;
        st.last_progress = clock_type::now();
        if (p.phase == "train") {
          st.trees_done = p.done;
          st.trees_total = p.total;
        }
        caf::anon_send(st.listener, std::move(p));
      },
      [=](messages::tick_atom, std::uint64_t) { on_tick(self); },
  };
}

} // namespace

coordinator_actor spawn_coordinator(caf::actor_system& sys,
                                    std::vector<party_actor> parties,
                                    session_config cfg, caf::actor listener) {
  return sys.spawn(coordinator_impl, std::move(parties), std::move(cfg),
                   std::move(listener));
}

session_outcome run_session(caf::actor_system& sys,
                            const std::vector<party_actor>& parties,
                            const session_config& cfg,
                            const progress_fn& on_progress) {
  session_outcome out;
  auto stop_all = [&] {
    for (auto& p : parties)
      caf::anon_send_exit(p, caf::exit_reason::user_shutdown);
  };
  if (parties.size() != cfg.parties.size()) {
    stop_all();
    out.code = errc::bad_request;
    out.error = "the session has " + std::to_string(cfg.parties.size()) +
                " party specs but " + std::to_string(parties.size()) +
                " party actors";
    return out;
  }
  try {
    validate(cfg);
  } catch (const input_error& e) {
    stop_all();
    out.code = errc::bad_input;
    out.error = e.what();
    return out;
  }
  // Party 0 is the one with the label.
  auto ordered = active_first(cfg);
  std::vector<party_actor> handles;
  for (const auto& spec : ordered.parties)
    for (std::size_t i = 0; i < cfg.parties.size(); ++i)
      if (cfg.parties[i].name == spec.name)
        handles.push_back(parties[i]);
  caf::scoped_actor self{sys};
  auto coord = spawn_coordinator(sys, handles, ordered,
                                 caf::actor_cast<caf::actor>(self));
  self->monitor(coord);
  self->send(coord, messages::run_atom::value);
  // The coordinator answers every step within the timeout (twice that for
  // the active party's progress); this bound only guards against a bug.
  auto bound = 2 * cfg.timeout + std::chrono::seconds(10);
  bool done = false;
  while (!done)
    self->receive(
        [&](session::session_result& r) {
          out.result = std::move(r);
          done = true;
        },
        [&](session::session_failure& f) {
          out.code = f.code;
          out.error = std::move(f.message);
          done = true;
        },
        [&](session::progress_report& p) {
          if (on_progress)
            on_progress(p);
        },
        [&](caf::down_msg& dm) {
          if (dm.source != coord.address())
            return;
          out.code = errc::party_down;
          out.error = "the session coordinator ended unexpectedly (" +
                      describe(dm.reason) + ")";
          done = true;
        },
        caf::after(bound) >>
            [&] {
              out.code = errc::timeout;
              out.error =
                  "the session coordinator did not report within " +
                  seconds_text(
                      std::chrono::duration_cast<std::chrono::milliseconds>(
                          bound));
              done = true;
            });
  self->send_exit(coord, caf::exit_reason::user_shutdown);
  stop_all();
  return out;
}

} // namespace veil::actors
