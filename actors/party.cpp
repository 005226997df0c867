#include "actors/party.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <numeric>
#include <optional>
#include <type_traits>
#include <variant>

#include <caf/actor_system.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/errors.hpp"
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
using namespace std::chrono_literals;

/// What this party sent to a peer last, and whether the peer owes an answer
/// (sent after the last message received from it).
struct peer_watch {
  std::uint64_t sent_seq = 0;
  std::uint64_t recv_seq = 0;
  clock_type::time_point owed_since;
  std::string step;

  bool owes() const { return sent_seq > recv_seq; }
};

struct party_state {
  static inline const char* name = "veil.party";

  std::string party_name;

  // -- data ------------------------------------------------------------------
  party_data data;
  std::vector<float> test_labels;

  // -- session ---------------------------------------------------------------
  std::int32_t self_id = -1;
  std::vector<std::string> names;
  std::vector<party_actor> peers;
  std::vector<caf::actor_addr> peer_addrs;
  caf::actor coordinator; /// the roster's sender: the session's driver
  std::chrono::milliseconds timeout{60000};

  // -- role ------------------------------------------------------------------
  std::optional<plain::active_party> active;
  std::optional<plain::passive_party> passive;
  /// The role was restored from a saved part (a prediction session).
  bool restored = false;

  // -- requests in progress (active party) ------------------------------------
  caf::typed_response_promise<session::training_outcome> train_promise;
  caf::typed_response_promise<session::prediction> predict_promise;
  bool training = false;
  bool predicting = false;
  clock_type::time_point started;
  double bin_seconds = 0;
  std::int32_t total_trees = 0;
  std::size_t trees_reported = 0;
  clock_type::time_point last_progress;

  // -- liveness
  // ----------------------------------------------------------------
  std::vector<peer_watch> watch;
  std::uint64_t seq = 0;
  std::uint64_t tick_epoch = 0;
  bool ticking = false;

  // -- accounting
  // --------------------------------------------------------------
  byte_counts bytes;
  link_state links;
  double busy_seconds = 0;

  /// The party id of the actor that sent the current message, or -1.
  std::int32_t peer_of(const caf::strong_actor_ptr& sender) const {
    if (!sender)
      return -1;
    return peer_index(caf::actor_cast<caf::actor_addr>(sender));
  }

  std::int32_t peer_index(const caf::actor_addr& addr) const {
    return peer_index_of(peer_addrs, addr, self_id);
  }

  bool busy() const { return training || predicting; }
};

using party_pointer = party_actor::stateful_pointer<party_state>;

std::string step_of(const plain::message& m) {
  return step_text(plain::message_name(m), m);
}

/// Ends this party: fails a pending request with `err` and quits with it,
/// so that every monitor learns why.
void abort(party_pointer self, caf::error err) {
  auto& st = self->state;
  if (st.training && st.train_promise.pending())
    st.train_promise.deliver(err);
  if (st.predicting && st.predict_promise.pending())
    st.predict_promise.deliver(err);
  st.training = false;
  st.predicting = false;
  self->quit(std::move(err));
}

void abort(party_pointer self, errc code, std::string message) {
  abort(self, session_error(code, std::move(message)));
}

void arm_ticks(party_pointer self) {
  auto& st = self->state;
  if (st.ticking)
    return;
  st.ticking = true;
  self->delayed_send(caf::actor_cast<party_actor>(self),
                     tick_period(st.timeout), messages::tick_atom::value,
                     st.tick_epoch);
}

/// Sends the role's outgoing messages, counting their bytes and noting
/// which peer now owes an answer to what.
void route(party_pointer self, plain::outbox out) {
  auto& st = self->state;
  for (auto& e : out) {
    if (e.to < 0 || static_cast<std::size_t>(e.to) >= st.peers.size() ||
        e.to == st.self_id) {
      abort(self, errc::protocol_error,
            st.party_name + ": the protocol role addressed party " +
                std::to_string(e.to) + ", which is not a peer");
      return;
    }
    auto n = messages::wire_bytes(e.msg);
    st.bytes[plain::message_name(e.msg)].sent += n;
    auto& w = st.watch[static_cast<std::size_t>(e.to)];
    if (!w.owes())
      w.owed_since = clock_type::now();
    w.sent_seq = ++st.seq;
    w.step = step_of(e.msg);
    auto q = static_cast<std::size_t>(e.to);
    std::visit(
        [&](auto& x) {
          send_on_link(self, st.links, q, st.peers[q], n, std::move(x));
        },
        e.msg);
  }
}

/// Tells the session's driver (an untyped actor) how far this party got,
/// as itself: the driver takes reports from the party it waits for only.
void report_progress(party_pointer self, session::progress_report p) {
  auto& st = self->state;
  if (st.coordinator)
    caf::send_as(caf::actor_cast<caf::actor>(self), st.coordinator,
                 std::move(p));
}

/// After a protocol step: report progress to the coordinator, answer a
/// request whose work is done.
void after_step(party_pointer self) {
  auto& st = self->state;
  if (!st.active)
    return;
  auto now = clock_type::now();
  if (st.training) {
    auto trees = st.active->model().trees.size();
    if (trees != st.trees_reported || now - st.last_progress > st.timeout / 4) {
      st.trees_reported = trees;
      st.last_progress = now;
      report_progress(
          self, session::progress_report{
                    "train", static_cast<std::int32_t>(trees), st.total_trees});
    }
    if (st.active->training_done()) {
      st.training = false;
      session::training_outcome out;
      out.model = st.active->model();
      out.train_seconds = seconds_since(st.started);
      out.bin_seconds = st.bin_seconds;
      st.train_promise.deliver(std::move(out));
    }
  } else if (st.predicting) {
    if (now - st.last_progress > st.timeout / 4) {
      st.last_progress = now;
      report_progress(self, session::progress_report{"predict", 0, 0});
    }
    if (st.active->predict_done()) {
      st.predicting = false;
      session::prediction out;
      out.margins = st.active->predicted_margins();
      auto obj = st.active->model().make_objective();
      if (!st.test_labels.empty()) {
        auto preds = obj.transform(out.margins, st.test_labels.size());
        for (auto& [k, v] : learners::evaluate(obj, st.test_labels, preds)) {
          out.metric_names.push_back(k);
          out.metric_values.push_back(v);
        }
      }
      out.predict_seconds = seconds_since(st.started);
      st.predict_promise.deliver(std::move(out));
    }
  }
}

/// Hands one protocol message to the role and routes what it answers.
template <class T>
void on_wire(party_pointer self, T& x) {
  auto& st = self->state;
  busy_clock working{st.busy_seconds};
  plain::message m{std::move(x)};
  auto from = st.peer_of(self->current_sender());
  if (from < 0) {
    abort(self, errc::unknown_sender,
          st.party_name + " got a " + plain::message_name(m) +
              " message from an actor that is not a peer of this session");
    return;
  }
  const auto& sender = st.names[static_cast<std::size_t>(from)];
  st.bytes[plain::message_name(m)].received += messages::wire_bytes(m);
  st.watch[static_cast<std::size_t>(from)].recv_seq = ++st.seq;
  st.links.heard_from(static_cast<std::size_t>(from));
  if (auto* f = std::get_if<plain::failure>(&m)) {
    abort(self, errc::protocol_error,
          sender + " failed at step " + f->step + ": " + f->reason);
    return;
  }
  if (!st.active && !st.passive) {
    abort(self, errc::bad_request,
          st.party_name + " got a " + plain::message_name(m) + " from " +
              sender + " before its role was set up");
    return;
  }
  std::string name = plain::message_name(m);
  auto out = st.active ? st.active->on_message(from, m)
                       : st.passive->on_message(from, std::move(m));
  if (!out) {
    const auto& e = out.error();
    if (st.passive)
      route(self, {{from, plain::failure{e.step, e.reason}}});
    abort(self, errc::protocol_error,
          st.party_name + " refused a " + name + " from " + sender +
              " at step " + e.step + ": " + e.reason);
    return;
  }
  route(self, std::move(*out));
  after_step(self);
}

/// Checks that no peer has owed an answer for longer than the timeout.
void on_tick(party_pointer self, std::uint64_t epoch) {
  auto& st = self->state;
  if (epoch != st.tick_epoch)
    return;
  st.ticking = false;
  if (!st.busy())
    return;
  auto now = clock_type::now();
  std::string late;
  for (std::size_t q = 0; q < st.watch.size(); ++q) {
    const auto& w = st.watch[q];
    if (w.owes() && now - w.owed_since > st.timeout)
      late += (late.empty() ? "" : "; ") + st.names[q] +
              " did not answer within " + seconds_text(st.timeout) +
              " at step " + w.step;
  }
  if (!late.empty()) {
    abort(self, errc::timeout, late);
    return;
  }
  after_step(self); // keeps the coordinator's watchdog fed in long steps
  arm_ticks(self);
}

caf::result<session::data_summary> on_load(party_pointer self,
                                           session::load_request& r) {
  auto& st = self->state;
  if (st.active || st.passive)
    return session_error(errc::bad_request,
                         st.party_name + ": load after the session started");
  auto s = load_party_data(st.party_name, r, st.data);
  if (!s)
    return std::move(s.error());
  return std::move(*s);
}

caf::result<std::uint64_t> on_align(party_pointer self,
                                    session::align_request& r) {
  auto& st = self->state;
  if (st.active || st.passive)
    return session_error(errc::bad_request,
                         st.party_name + ": align after the session started");
  auto n = align_party_data(st.party_name, r, st.data);
  if (!n)
    return std::move(n.error());
  return *n;
}

caf::result<caf::ok_atom> on_peers(party_pointer self, session::roster& r,
                                   std::vector<caf::actor>& peers) {
  auto& st = self->state;
  auto n = peers.size();
  if (st.self_id >= 0)
    return session_error(errc::bad_request,
                         st.party_name + ": got a second roster");
  auto at = check_roster(st.party_name, r, peers, self->address());
  if (!at)
    return std::move(at.error());
  if (!st.data.train_loaded && !st.data.test_loaded)
    return session_error(errc::bad_request,
                         st.party_name + ": roster before its data was loaded");
  st.self_id = *at;
  st.names = std::move(r.names);
  st.timeout = std::chrono::milliseconds(r.timeout_ms);
  {
    std::vector<std::int32_t> all(n); // link q is party q's
    std::iota(all.begin(), all.end(), 0);
    st.links.reset(std::move(all), r.link);
  }
  for (auto& p : peers) {
    st.peer_addrs.push_back(p.address());
    st.peers.push_back(caf::actor_cast<party_actor>(p));
  }
  st.watch.assign(n, {});
  st.coordinator = caf::actor_cast<caf::actor>(self->current_sender());
  self->monitor(st.coordinator);
  if (st.self_id == 0) {
    for (std::size_t q = 1; q < n; ++q)
      self->monitor(st.peers[q]);
  } else {
    self->monitor(st.peers[0]);
    if (st.data.train.has_labels())
      return session_error(errc::bad_input,
                           st.party_name + ": a passive party holds labels");
    if (st.data.train_loaded) { // else a prediction session: see on_part
      st.passive.emplace(std::move(st.data.train));
      if (st.data.test_loaded)
        st.passive->set_predict_data(std::move(st.data.test));
    }
  }
  return caf::ok_atom::value;
}

/// This party's split table, its features by name.
session::split_export split_table_of(party_pointer self) {
  auto& st = self->state;
  if (st.active)
    return session::export_splits(st.party_name, st.active->own_splits(),
                                  st.active->model().feature_names);
  if (st.passive)
    return session::export_splits(st.party_name, st.passive->splits(),
                                  st.passive->train_data().feature_names());
  return {st.party_name, {}};
}

/// Whether the current message comes from this session's coordinator.
bool from_coordinator(party_pointer self) {
  const auto& st = self->state;
  return st.coordinator &&
         caf::actor_cast<caf::actor_addr>(self->current_sender()) ==
             st.coordinator.address();
}

/// Saves this party's part of the trained model where it runs (a passive
/// party's split table; the active party's splits are in the model the
/// coordinator keeps), or restores it for a prediction session over the
/// test rows.
caf::result<std::uint64_t> on_part(party_pointer self,
                                   session::part_request& r) {
  auto& st = self->state;
  busy_clock working{st.busy_seconds};
  if (!from_coordinator(self) || st.busy())
    return session_error(errc::bad_request,
                         st.party_name + ": a model part request from the "
                                         "coordinator, between steps only");
  try {
    if (r.save) {
      // Not busy (checked above): training has ended at the active party.
      if (st.restored || (!st.active && !st.passive))
        return session_error(errc::bad_request, st.party_name +
                                                    ": save a model part after "
                                                    "training only");
      auto table = split_table_of(self);
      if (st.passive)
        session::save_split_table(table, r.model_id, r.path);
      return std::uint64_t{table.splits.size()};
    }
    if (st.active || st.passive || st.self_id < 0 || !st.data.test_loaded)
      return session_error(errc::bad_request,
                           st.party_name + ": " + restore_precondition);
    const auto& columns = st.data.test.feature_names();
    if (st.self_id == 0) {
      std::vector<plain::party_id> passives;
      for (std::size_t q = 1; q < st.peers.size(); ++q)
        passives.push_back(static_cast<plain::party_id>(q));
      for (std::size_t f = 0; f < columns.size(); ++f)
        if (f >= r.model.feature_names.size() ||
            r.model.feature_names[f] != columns[f])
          return session_error(
              errc::bad_input,
              st.party_name + ": column " + std::to_string(f + 1) + " (" +
                  columns[f] + ") is not the model's feature " +
                  (f < r.model.feature_names.size() ? r.model.feature_names[f]
                                                    : std::string("(none)")));
      std::uint64_t own = 0;
      for (const auto& t : r.model.trees)
        for (const auto& n : t.nodes)
          own += !n.is_leaf() && n.owner == 0;
      st.active = plain::active_party::restored(
          std::move(r.model), columns.size(), std::move(passives));
      st.restored = true;
      return own;
    }
    auto part = session::load_split_table(r.path, st.party_name, r.model_id);
    auto splits = session::import_splits<plain::split_table>(
        part, columns, r.path, [](std::int32_t f, const auto& e) {
          return plain::owned_split{f, e.threshold, e.default_left};
        });
    st.data.test_loaded = false;
    st.passive.emplace(std::move(splits), std::move(st.data.test));
    st.restored = true;
    return std::uint64_t{part.splits.size()};
  } catch (const std::exception& e) {
    return session_error(errc::bad_input, st.party_name + ": " + e.what());
  }
}

caf::result<session::training_outcome> on_train(party_pointer self,
                                                session::train_request& r) {
  auto& st = self->state;
  if (st.self_id != 0)
    return session_error(errc::bad_request,
                         st.party_name + " is not the active party of " +
                             "this session (or has no roster yet)");
  if (st.active)
    return session_error(errc::bad_request,
                         st.party_name + ": trained already");
  busy_clock working{st.busy_seconds};
  std::vector<plain::party_id> passives;
  for (std::size_t q = 1; q < st.peers.size(); ++q)
    passives.push_back(static_cast<plain::party_id>(q));
  st.started = clock_type::now();
  try {
    st.active.emplace(r.params, std::move(st.data.train), std::move(passives));
  } catch (const std::exception& e) {
    return session_error(errc::bad_input, st.party_name + ": " + e.what());
  }
  st.bin_seconds = seconds_since(st.started);
  st.total_trees = r.params.rounds * st.active->model().outputs();
  st.trees_reported = 0;
  st.last_progress = clock_type::now();
  st.train_promise = self->make_response_promise<session::training_outcome>();
  st.training = true;
  route(self, st.active->start());
  after_step(self);
  if (st.training)
    arm_ticks(self);
  return st.train_promise;
}

caf::result<session::prediction> on_predict(party_pointer self,
                                            session::predict_request&) {
  auto& st = self->state;
  if (!st.active || st.training || st.predicting)
    return session_error(errc::bad_request,
                         st.party_name + ": predict before training ended, "
                                         "or not the active party");
  if (!st.data.test_loaded)
    return session_error(errc::bad_request,
                         st.party_name + ": predict without test data");
  busy_clock working{st.busy_seconds};
  st.test_labels = st.data.test.labels();
  st.started = clock_type::now();
  plain::outbox out;
  try {
    // A copy: a live session may predict the same rows again.
    out = st.active->start_predict(st.data.test);
  } catch (const std::exception& e) {
    return session_error(errc::bad_input, st.party_name + ": " + e.what());
  }
  st.last_progress = clock_type::now();
  st.predict_promise = self->make_response_promise<session::prediction>();
  st.predicting = true;
  route(self, std::move(out));
  after_step(self);
  if (st.predicting)
    arm_ticks(self);
  return st.predict_promise;
}

caf::result<session::split_export> on_splits(party_pointer self) {
  // Only the session's coordinator may ask (an explicit export).
  if (!from_coordinator(self))
    return session_error(errc::bad_request,
                         self->state.party_name +
                             ": a split table goes to the session's "
                             "coordinator only");
  return split_table_of(self);
}

party_actor::behavior_type party_impl(party_pointer self, std::string name) {
  self->state.party_name = std::move(name);
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& st = self->state;
    if (dm.source == st.coordinator.address()) {
      abort(self, errc::party_down,
            st.party_name + ": the coordinator ended (" + describe(dm.reason) +
                ")");
      return;
    }
    auto q = st.peer_index(dm.source);
    if (q < 0)
      return;
    const auto& w = st.watch[static_cast<std::size_t>(q)];
    auto step = w.sent_seq > 0 ? w.step : std::string("session setup");
    auto reason = describe(dm.reason);
    // A party that aborted on purpose says why, naming itself and its step.
    if (dm.reason.category() == caf::atom("veil"))
      abort(self, session_error(code_of(dm.reason), reason));
    else
      abort(self, errc::party_down,
            st.names[static_cast<std::size_t>(q)] + " ended at step " + step +
                " (" + reason + ")");
  });
  // A message outside the interface (or one that failed to decode, which
  // CAF delivers as an empty message) ends the session, naming the sender
  // and the step, instead of being dropped.
  self->set_default_handler([=](caf::scheduled_actor*, caf::message_view& x)
                                -> caf::result<caf::message> {
    auto& st = self->state;
    auto what = unexpected_text(x.copy_content_to_message());
    auto sender = self->current_sender();
    std::string from;
    auto q = st.peer_of(sender);
    if (q >= 0)
      from = st.names[static_cast<std::size_t>(q)];
    else if (sender && st.coordinator &&
             caf::actor_cast<caf::actor_addr>(sender) ==
                 st.coordinator.address())
      from = "the coordinator";
    else if (sender)
      from = "actor " + std::to_string(sender->id()) + node_text(sender) +
             " (not a peer)";
    else
      from = "an anonymous sender";
    std::string step = st.training      ? "train"
                       : st.predicting  ? "predict"
                       : st.self_id < 0 ? "session setup"
                                        : "between steps";
    auto err = session_error(errc::protocol_error,
                             st.party_name + " got an unexpected message " +
                                 what + " from " + from + " at step " + step);
    abort(self, err);
    return err;
  });
  return {
      [=](messages::load_atom, session::load_request& r) {
        return on_load(self, r);
      },
      [=](messages::align_atom, session::align_request& r) {
        return on_align(self, r);
      },
      [=](messages::peers_atom, session::roster& r,
          std::vector<caf::actor>& peers) { return on_peers(self, r, peers); },
      [=](messages::train_atom, session::train_request& r) {
        return on_train(self, r);
      },
      [=](messages::predict_atom, session::predict_request& r) {
        return on_predict(self, r);
      },
      [=](messages::splits_atom) { return on_splits(self); },
      [=](messages::part_atom, session::part_request& r) {
        return on_part(self, r);
      },
      [=](messages::stats_atom) {
        const auto& st = self->state;
        return byte_stats_of(st.party_name, st.bytes, st.links,
                             st.busy_seconds);
      },
      [=](messages::tick_atom, std::uint64_t epoch) { on_tick(self, epoch); },
      [=](plain::setup& x) { on_wire(self, x); },
      [=](plain::setup_done& x) { on_wire(self, x); },
      [=](plain::tree_start& x) { on_wire(self, x); },
      [=](plain::level_request& x) { on_wire(self, x); },
      [=](plain::histograms& x) { on_wire(self, x); },
      [=](plain::split_query& x) { on_wire(self, x); },
      [=](plain::split_answer& x) { on_wire(self, x); },
      [=](plain::predict_query& x) { on_wire(self, x); },
      [=](plain::predict_answer& x) { on_wire(self, x); },
      [=](plain::failure& x) { on_wire(self, x); },
  };
}

} // namespace

party_actor spawn_party(caf::actor_system& sys, std::string name) {
  return sys.spawn(party_impl, std::move(name));
}

} // namespace veil::actors
