#pragma once

// Small pieces every party actor and coordinator shares: wall time, the
// period of the liveness ticks, and the byte counts per message type.

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iostream>
#include <map>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include <optional>
#include <tuple>

#include <caf/actor.hpp>
#include <caf/actor_addr.hpp>
#include <caf/actor_clock.hpp>
#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/exit_reason.hpp>
#include <caf/expected.hpp>
#include <caf/scheduled_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/system_messages.hpp>

#include "actors/alignment.hpp"
#include "actors/errors.hpp"
#include "actors/hosting.hpp"
#include "actors/local_system.hpp"
#include "actors/remote.hpp"
#include "learners/boost/early_stopping.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/input_error.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "messages/wire_size.hpp"
#include "protocols/descriptor.hpp"
#include "protocols/session/model_file.hpp"
#include "protocols/session/wire.hpp"

namespace veil::actors {

using clock_type = std::chrono::steady_clock;

/// Seconds from `t` to now.
inline double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

/// How often an actor with silence timeout `timeout` checks on its peers:
/// an eighth of it, from 10 ms to 1 s.
inline std::chrono::milliseconds
tick_period(std::chrono::milliseconds timeout) {
  using namespace std::chrono_literals;
  return std::clamp<std::chrono::milliseconds>(timeout / 8, 10ms, 1000ms);
}

/// How long a party that only answers (a role, not training or predicting:
/// an OpBoost Party B, a plain passive party, any party between a live
/// session's calls) waits for its next message by default, in timeouts: it
/// waits for another party's whole computation (Party A trains every tree
/// between the ranks and the split request), so far longer than one step's
/// timeout, but not forever: a peer or coordinator that hangs without its
/// connection dropping would keep the party and its data in memory. The
/// session setting net.idle_timeout replaces it.
constexpr int idle_timeouts = 30;

/// The idle bound of a roster: its net.idle_timeout, or idle_timeouts
/// timeouts.
inline std::chrono::milliseconds
idle_bound(const protocols::session::roster& r) {
  if (r.link.idle_seconds > 0)
    return std::chrono::milliseconds(
        static_cast<std::int64_t>(r.link.idle_seconds * 1000));
  return std::chrono::milliseconds(r.timeout_ms) * idle_timeouts;
}

/// Payload bytes of one message type.
struct byte_count {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};

/// By message type.
using byte_counts = std::map<std::string, byte_count>;

/// A party's links to its peers: what it sent on each (bytes, and turns:
/// runs of messages sent without one received from that peer in between,
/// the link's rounds as this party drives them) and, when the roster's
/// link_model is enabled, when each link is free again, so that a message
/// is delivered latency + bytes/bandwidth after it is sent, queued behind
/// the earlier ones on its link.
struct link_state {
  protocols::session::link_model model;
  /// By link (0, 1, ...): the roster index of the peer at its other end.
  std::vector<std::int32_t> peer;
  std::vector<clock_type::time_point> free_at;
  std::vector<std::uint64_t> bytes;
  std::vector<std::uint64_t> turns;
  std::vector<bool> answered; // heard from q since last sending to it

  /// One link per peer in `peers` (roster indices).
  void reset(std::vector<std::int32_t> peers,
             const protocols::session::link_model& m) {
    model = m;
    peer = std::move(peers);
    auto n = peer.size();
    free_at.assign(n, clock_type::time_point{});
    bytes.assign(n, 0);
    turns.assign(n, 0);
    answered.assign(n, true);
  }

  void heard_from(std::size_t q) {
    if (q < answered.size())
      answered[q] = true;
  }

  /// Notes `n` bytes sent to peer q; when the message must arrive (none:
  /// at once, no emulation). Arrival times on a link never decrease, and
  /// CAF's clock delivers messages due at the same time in the order they
  /// were scheduled, so a link keeps its order.
  std::optional<clock_type::time_point> sent(std::size_t q, std::size_t n,
                                             clock_type::time_point now) {
    bytes[q] += n;
    if (answered[q]) {
      ++turns[q];
      answered[q] = false;
    }
    if (!model.enabled())
      return std::nullopt;
    using seconds = std::chrono::duration<double>;
    auto start = std::max(now, free_at[q]);
    double transfer =
        model.bandwidth_mbps > 0
            ? static_cast<double>(n) * 8 / (model.bandwidth_mbps * 1e6)
            : 0.0;
    free_at[q] = start + std::chrono::duration_cast<clock_type::duration>(
                             seconds(transfer));
    return free_at[q] +
           std::chrono::duration_cast<clock_type::duration>(
               std::chrono::duration<double, std::milli>(model.latency_ms));
  }
};

/// Sends `x` (of `n` wire bytes) to peer q (`dest`) over its link: at once,
/// or as late as the emulated link delivers it.
template <class Actor, class Dest, class T>
void send_on_link(Actor* self, link_state& links, std::size_t q,
                  const Dest& dest, std::size_t n, T&& x) {
  // CAF's actor clock is the steady clock too: arrival times are absolute.
  static_assert(std::is_same_v<caf::actor_clock::clock_type, clock_type>);
  if (auto at = links.sent(q, n, self->clock().now()))
    self->scheduled_send(dest, *at, std::forward<T>(x));
  else
    self->send(dest, std::forward<T>(x));
}

/// Now on the actor's clock: the liveness rules and the emulated links
/// measure time by it, so that CAF's deterministic test coordinator can
/// drive them (it is the steady clock otherwise).
template <class Actor>
clock_type::time_point now_of(Actor* self) {
  return self->clock().now();
}

/// Adds the time from its construction to its end to `total` (seconds): a
/// party's computing time, handler by handler.
struct busy_clock {
  double& total;
  clock_type::time_point start = clock_type::now();
  ~busy_clock() { total += seconds_since(start); }
};

/// The report of `party`'s byte counts, links and computing time.
inline protocols::session::byte_stats
byte_stats_of(const std::string& party, const byte_counts& bytes,
              const link_state& links = {}, double busy_seconds = 0) {
  protocols::session::byte_stats s;
  s.party = party;
  for (const auto& [type, n] : bytes) {
    s.types.push_back(type);
    s.sent.push_back(n.sent);
    s.received.push_back(n.received);
  }
  for (std::size_t q = 0; q < links.bytes.size(); ++q)
    if (links.bytes[q] > 0) {
      s.link_peers.push_back(links.peer[q]);
      s.link_bytes.push_back(links.bytes[q]);
      s.link_turns.push_back(links.turns[q]);
    }
  s.busy_seconds = busy_seconds;
  return s;
}

/// The index of the party at `self_addr` in a roster of `handles`: the
/// roster's own, or (-1 there: one roster message for every party) found
/// by address, at `hint` first (the index it was spawned with: a star of
/// 100,000 parties would otherwise scan 100,000 handles at each); -1 when
/// it is not there.
inline std::int32_t roster_index(const protocols::session::roster& r,
                                 const std::vector<caf::actor>& handles,
                                 const caf::actor_addr& self_addr,
                                 std::int32_t hint = -1) {
  if (r.self >= 0)
    return r.self;
  if (hint >= 0 && static_cast<std::size_t>(hint) < handles.size() &&
      handles[static_cast<std::size_t>(hint)] &&
      handles[static_cast<std::size_t>(hint)].address() == self_addr)
    return hint;
  // Ids first: comparing addresses costs two reference counts each.
  auto id = self_addr.id();
  for (std::size_t q = 0; q < handles.size(); ++q)
    if (handles[q] && handles[q].id() == id &&
        handles[q].address() == self_addr)
      return static_cast<std::int32_t>(q);
  return -1;
}

/// Checks a roster at party `me` (`self_addr`): as many names as `peers`,
/// its own index (given or found, see roster_index) pointing at itself, a
/// hub within the roster, a positive timeout, link settings within
/// protocols::session_settings(). Its index in the roster, or the error to
/// answer with.
inline caf::expected<std::int32_t>
check_roster(const std::string& me, const protocols::session::roster& r,
             const std::vector<caf::actor>& peers,
             const caf::actor_addr& self_addr, std::int32_t hint = -1) {
  using protocols::session::errc;
  auto n = peers.size();
  auto at = roster_index(r, peers, self_addr, hint);
  if (n != r.names.size() || at < 0 || static_cast<std::size_t>(at) >= n ||
      peers[static_cast<std::size_t>(at)].address() != self_addr ||
      r.hub < -1 || r.hub >= static_cast<std::int64_t>(n))
    return session_error(errc::bad_request, me + ": malformed roster");
  if (r.timeout_ms <= 0)
    return session_error(errc::bad_request,
                         me + ": the timeout must be positive");
  for (const auto& s : protocols::session_settings()) {
    auto x = s.key == "net.latency_ms"       ? r.link.latency_ms
             : s.key == "net.bandwidth_mbps" ? r.link.bandwidth_mbps
             : s.key == "net.idle_timeout"   ? r.link.idle_seconds
                                             : s.min;
    if (!(x >= s.min && x <= s.max))
      return session_error(errc::bad_request,
                           me + ": roster's " + s.key + " out of range");
  }
  return at;
}

/// The index of `addr` among `peers`, other than `self`; -1 for none.
inline std::int32_t peer_index_of(const std::vector<caf::actor_addr>& peers,
                                  const caf::actor_addr& addr,
                                  std::int32_t self) {
  for (std::size_t i = 0; i < peers.size(); ++i)
    if (peers[i] == addr && static_cast<std::int32_t>(i) != self)
      return static_cast<std::int32_t>(i);
  return -1;
}

/// "histograms (tree 3, depth 2)": a protocol message's name (`name`) and,
/// where it has them, its tree and depth (a depth alone: "(level 2)"), or
/// its step.
template <class Message>
std::string step_text(std::string name, const Message& m) {
  std::visit(
      [&](const auto& x) {
        if constexpr (
            requires { x.tree; } && requires { x.depth; })
          name += " (tree " + std::to_string(x.tree) + ", depth " +
                  std::to_string(x.depth) + ")";
        else if constexpr (requires { x.tree; })
          name += " (tree " + std::to_string(x.tree) + ")";
        else if constexpr (requires { x.depth; })
          name += " (level " + std::to_string(x.depth) + ")";
        else if constexpr (requires { x.step; }) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x.step)>,
                                       std::string>)
            name += " (step " + x.step + ")";
          else
            name += " (step " + std::to_string(x.step) + ")";
        }
      },
      m);
  return name;
}

// -- party actors -------------------------------------------------------------

/// A peer a party exchanges messages with: its roster index, name and
/// handle, when it was last heard from (none: never) and what it sent, and
/// since when it owes an answer (sent to after it was last heard from)
/// with what this party sent it first.
struct neighbour {
  std::int32_t index = -1;
  std::string name;
  caf::actor handle;
  std::optional<clock_type::time_point> heard;
  std::string heard_what;
  std::optional<clock_type::time_point> owes_since;
  std::string owed_for;
};

/// What every party actor's state holds about its session: its name and
/// index, its neighbours (the peers the roster's topology links it to: all
/// in a mesh; in a star the hub has every other party and the others the
/// hub), its coordinator, the silence timeout and the ticks that enforce
/// it, the step it is at, its links and byte counts. A protocol's state
/// derives from it and adds its role and data (and has_role(), for
/// handle_wire). A star's leaves hold one neighbour each, so a session of
/// thousands of parties costs each of them a few hundred bytes.
struct peer_state {
  std::string me;
  /// In the coordinator's process, or on a node (what it may touch, whom
  /// it obeys before its roster).
  hosting host;
  std::int32_t index = -1;
  /// In roster order (so sorted by index); link k of `links` is
  /// neighbours[k]'s.
  std::vector<neighbour> neighbours;
  std::unordered_map<caf::actor_addr, std::size_t> slot_by_addr;
  caf::actor coordinator;
  std::chrono::milliseconds timeout{60000};

  bool training = false;
  bool predicting = false;
  clock_type::time_point started;
  clock_type::time_point last_heard;
  /// How long it waits when not busy (idle_bound of its roster).
  std::chrono::milliseconds idle{0};
  std::string step = "session setup"; // the last message handled or sent
  std::uint64_t tick_epoch = 0;
  bool ticking = false;
  bool ticking_slow = false; ///< the tick on its way checks the idle bound
  /// Has its role and ticks: when not busy, it ends after idle_timeouts
  /// timeouts without a peer's message.
  bool answering = false;

  byte_counts bytes;
  link_state links;
  double busy_seconds = 0;

  /// The last progress report sent to the coordinator (report_progress);
  /// a busy party repeats it on its ticks.
  std::int64_t progress_done = -1;
  std::int64_t progress_total = 0;
  std::string progress_phase;
  clock_type::time_point progress_at;

  static constexpr std::size_t none = static_cast<std::size_t>(-1);

  /// The slot in `neighbours` of the actor at `addr`; none if it is not a
  /// neighbour.
  std::size_t slot_of(const caf::actor_addr& addr) const {
    auto it = slot_by_addr.find(addr);
    return it == slot_by_addr.end() ? none : it->second;
  }
  /// The slot of roster index `q`; none if it is not a neighbour.
  std::size_t slot_of(std::int32_t q) const {
    auto it = std::lower_bound(
        neighbours.begin(), neighbours.end(), q,
        [](const neighbour& n, std::int32_t x) { return n.index < x; });
    if (it == neighbours.end() || it->index != q)
      return none;
    return static_cast<std::size_t>(it - neighbours.begin());
  }
  /// The roster index of the neighbour at `addr`, or -1.
  std::int32_t peer_index(const caf::actor_addr& addr) const {
    auto k = slot_of(addr);
    return k == none ? -1 : neighbours[k].index;
  }
  /// The name of party `q` for messages: a neighbour's, this party's, or
  /// "party q".
  std::string name_of(std::int32_t q) const {
    if (q == index)
      return me;
    auto k = slot_of(q);
    return k == none ? "party " + std::to_string(q) : neighbours[k].name;
  }
  bool busy() const { return training || predicting; }

  /// Joins the session of a roster as party `at` (check_roster's) among
  /// `handles` (every party's, this one's included): its neighbours
  /// by the roster's topology with their names, the silence timeout, the
  /// links; monitors the neighbours and the coordinator (the roster's
  /// sender). Copies only what it keeps: one roster message can serve
  /// every party.
  template <class Actor>
  void join(Actor* self, const protocols::session::roster& r,
            const std::vector<caf::actor>& handles, std::int32_t at) {
    index = at;
    timeout = std::chrono::milliseconds(r.timeout_ms);
    idle = idle_bound(r);
    last_heard = now_of(self); // the idle bound counts from here
    auto linked = [&](std::int32_t q) {
      return q != index && (r.hub < 0 || index == r.hub || q == r.hub);
    };
    std::vector<std::int32_t> peers;
    // A star's leaf links its hub only: no walk over every party.
    std::size_t first = 0, last = handles.size();
    if (r.hub >= 0 && index != r.hub) {
      first = static_cast<std::size_t>(r.hub);
      last = first + 1;
    }
    for (std::size_t q = first; q < last; ++q) {
      auto qi = static_cast<std::int32_t>(q);
      if (!linked(qi))
        continue;
      slot_by_addr.emplace(handles[q].address(), neighbours.size());
      neighbours.push_back(
          {qi, r.names[q], handles[q], std::nullopt, {}, std::nullopt, {}});
      peers.push_back(qi);
    }
    links.reset(std::move(peers), r.link);
    coordinator = caf::actor_cast<caf::actor>(self->current_sender());
    if (coordinator)
      self->monitor(coordinator);
    for (const auto& n : neighbours)
      self->monitor(n.handle);
  }
};

// The helpers below serve a party actor whose state is a peer_state.

/// Sends the actor its next liveness tick, unless one is on its way.
template <class Actor>
void arm_ticks(Actor* self) {
  auto& st = self->state;
  // A party that only answers checks its idle bound, far longer than a
  // step's timeout: a tick a second at each of a star's 100,000 leaves
  // would be 100,000 messages a second for nothing. One that becomes busy
  // replaces its slow tick.
  if (st.ticking && !(st.busy() && st.ticking_slow))
    return;
  if (st.ticking)
    ++st.tick_epoch; // the slow tick on its way is void
  st.ticking = true;
  st.ticking_slow = !st.busy();
  auto period = st.busy()
                    ? tick_period(st.timeout)
                    : std::max(tick_period(st.timeout),
                               std::min<std::chrono::milliseconds>(
                                   st.idle / 16, std::chrono::seconds(60)));
  self->delayed_send(self, period, messages::tick_atom::value, st.tick_epoch);
}

/// Whether the actor's current message comes from its session's
/// coordinator (the roster's sender).
template <class Actor>
bool from_coordinator(Actor* self) {
  const auto& st = self->state;
  return st.coordinator &&
         caf::actor_cast<caf::actor_addr>(self->current_sender()) ==
             st.coordinator.address();
}

/// Whether the current message may come before the roster: from anyone
/// for a party in the coordinator's process, only from the actor that
/// asked its node for it otherwise.
template <class Actor>
bool from_owner(Actor* self) {
  const auto& owner = self->state.host.owner;
  return !owner ||
         caf::actor_cast<caf::actor_addr>(self->current_sender()) == owner;
}

/// The sender of the actor's current message, in words, for logs.
template <class Actor>
std::string sender_text(Actor* self) {
  auto sender = self->current_sender();
  return sender ? "actor " + std::to_string(sender->id()) + node_text(sender)
                : "an anonymous sender";
}

/// Whether the actor obeys its current message, a session step `what`:
/// once it has its roster, only from its session's coordinator. A
/// stranger's (or a peer's) is dropped and logged, never a reason to end:
/// anyone who learns an actor's id could otherwise drive it or end its
/// session. (Before the roster the party is its spawner's: see veil node.)
template <class Actor>
bool obeys(Actor* self, const char* what) {
  const auto& st = self->state;
  if (st.coordinator ? from_coordinator(self) : from_owner(self))
    return true;
  std::cerr << "veil: warning: " << st.me << " dropped a " << what
            << " request from " << sender_text(self)
            << ": not its session's coordinator\n";
  return false;
}

/// What a request that obeys() dropped is answered with.
inline caf::error refused_request() {
  return session_error(protocols::session::errc::bad_request,
                       "not this session's coordinator");
}

/// Ends the actor when its coordinator ends, or a peer ends with an error
/// (a "veil" error passes on as it is; any other names the peer and the
/// step this actor was at), and on any message it has no handler for
/// (naming it and the step).
template <class Actor>
void watch_peers(Actor* self) {
  using protocols::session::errc;
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& st = self->state;
    if (st.coordinator && dm.source == st.coordinator.address()) {
      self->quit(
          session_error(errc::party_down, st.me + ": the coordinator ended (" +
                                              describe(dm.reason) + ")"));
      return;
    }
    auto q = st.peer_index(dm.source);
    if (q < 0 || !dm.reason) // not a peer, or one that finished normally
      return;
    auto reason = describe(dm.reason);
    if (dm.reason.category() == caf::atom("veil"))
      self->quit(session_error(code_of(dm.reason), reason));
    else
      self->quit(session_error(errc::party_down, st.name_of(q) +
                                                     " ended while " + st.me +
                                                     " was at step " + st.step +
                                                     " (" + reason + ")"));
  });
  // A message outside the protocol (or one that failed to decode, which
  // CAF delivers as an empty message) ends the session, naming the
  // sender and the step, instead of being dropped.
  self->set_default_handler([=](caf::scheduled_actor*, caf::message_view& x)
                                -> caf::result<caf::message> {
    auto& st = self->state;
    auto sender = self->current_sender();
    auto q =
        sender ? st.peer_index(caf::actor_cast<caf::actor_addr>(sender)) : -1;
    auto what = unexpected_text(x.copy_content_to_message());
    if (q < 0 &&
        (st.coordinator ? !from_coordinator(self) : !from_owner(self))) {
      // A stranger's: dropped and logged, not a reason to end the session.
      std::cerr << "veil: warning: " << st.me << " dropped an unexpected "
                << "message " << what << " from " << sender_text(self)
                << " (not in its session)\n";
      return session_error(errc::bad_request, "not a party of this session");
    }
    std::string from = q >= 0 ? st.name_of(q)
                       : from_coordinator(self)
                           ? "the coordinator"
                           : sender_text(self) + " (not a peer)";
    auto err = session_error(errc::protocol_error,
                             st.me + " got an unexpected message " + what +
                                 " from " + from + " at step " + st.step);
    self->quit(err);
    return err;
  });
}

/// Sends a protocol role's outbox to the actor's peers, counting each
/// message's wire bytes (messages::wire_bytes) by its name (message_name of
/// the protocol, found by argument-dependent lookup) and noting it as the
/// step. A message addressed to no peer ends the actor. Sending restarts
/// the silence clock (last_heard): the party's own work before it, however
/// long, is no peer's silence.
template <class Actor, class Outbox>
void route(Actor* self, Outbox out) {
  auto& st = self->state;
  if (!out.empty())
    st.last_heard = now_of(self);
  for (auto& e : out) {
    auto q = st.slot_of(e.to);
    if (q == peer_state::none) {
      self->quit(session_error(protocols::session::errc::protocol_error,
                               st.me + ": the protocol role addressed party " +
                                   std::to_string(e.to) +
                                   ", which is not a peer"));
      return;
    }
    auto n = messages::wire_bytes(e.msg);
    st.bytes[message_name(e.msg)].sent += n;
    st.step = step_text(message_name(e.msg), e.msg);
    auto& nb = st.neighbours[q];
    if (!nb.owes_since) {
      nb.owes_since = st.last_heard;
      nb.owed_for = st.step;
    }
    std::visit(
        [&](auto& x) {
          send_on_link(self, st.links, q, st.neighbours[q].handle, n,
                       std::move(x));
        },
        e.msg);
  }
}

/// Every byte a party sent and received so far (its progress reports).
inline std::uint64_t bytes_so_far(const byte_counts& bytes) {
  std::uint64_t n = 0;
  for (const auto& [type, count] : bytes)
    n += count.sent + count.received;
  return n;
}

/// Tells the session's coordinator how far the actor's work (`phase`,
/// "train" or "predict") got (`done` of `total` trees; 0 of 0: working),
/// when that changed or a quarter of the timeout passed since the last
/// report: the driver shows it, names the step by it and, for a protocol
/// that bounds the silence of its training party, knows it is alive (a
/// busy party repeats its last report on its ticks).
template <class Actor>
void report_progress(Actor* self, std::size_t done, std::size_t total,
                     const char* phase = "train",
                     const std::map<std::string, double>& metrics = {}) {
  auto& st = self->state;
  auto now = now_of(self);
  auto n = static_cast<std::int64_t>(done);
  if (!st.coordinator || (n == st.progress_done && st.progress_phase == phase &&
                          now - st.progress_at < st.timeout / 4))
    return;
  st.progress_done = n;
  st.progress_total = static_cast<std::int64_t>(total);
  st.progress_phase = phase;
  st.progress_at = now;
  protocols::session::progress_report r;
  r.phase = phase;
  r.done = static_cast<std::int32_t>(done);
  r.total = static_cast<std::int32_t>(total);
  protocols::session::put_metrics(metrics, r.metric_names, r.metric_values);
  r.bytes = bytes_so_far(st.bytes);
  self->send(st.coordinator, std::move(r));
}

/// Tells the coordinator what `role` finished with the last step: its
/// training (`trained()`, the protocol's session::trained) or its
/// prediction (a session::predicted with the role's margins and the time
/// since the request, completed by `fill(out)`); the actor is no longer
/// busy with it.
template <class Actor, class Role, class Trained, class Fill>
void report_finished(Actor* self, const Role& role, Trained trained,
                     Fill fill) {
  auto& st = self->state;
  if (st.training && role.training_done()) {
    st.training = false;
    self->send(st.coordinator, trained());
  }
  if (st.predicting && role.predict_done()) {
    st.predicting = false;
    protocols::session::predicted out;
    out.margins = role.predicted_margins();
    out.seconds = seconds_since(st.started);
    fill(out);
    self->send(st.coordinator, std::move(out));
  }
}

/// Adds the rows' margins after each round to the first prediction `out`
/// of the model this session trained (later ones, and a restored role's,
/// have none: the history is made once, from the test rows).
template <class State, class Role>
void add_staged(State& st, const Role& role,
                protocols::session::predicted& out) {
  if (st.restored || st.staged_sent)
    return;
  st.staged_sent = true;
  auto s = role.staged_margins();
  out.staged_stride = static_cast<std::uint32_t>(s.stride);
  out.staged = std::move(s.values);
}

/// The coordinator's side: a prediction's staged margins into the result,
/// if they fit its rows (`p.margins`) and the model's rounds; otherwise the
/// session fails, naming the predicting party.
template <class Driver, class Result>
void take_staged(Driver& d, protocols::session::predicted& p, Result& result) {
  if (p.staged.empty())
    return;
  learners::staged_margins s{p.staged_stride, std::move(p.staged)};
  if (s.stride == 0 ||
      s.values.size() !=
          learners::staged_size(result.model, p.margins.size(), s.stride))
    return d.fail(protocols::session::errc::protocol_error,
                  d.name(0) + " sent margins after each round that do not "
                              "fit its prediction");
  result.staged = std::move(s);
}

/// Once the actor has its role and works: marks it answering and arms its
/// ticks (busy: the timeout; otherwise the idle bound, see on_tick).
template <class Actor>
void keep_watch(Actor* self) {
  auto& st = self->state;
  if (!st.has_role())
    return;
  st.answering = true;
  arm_ticks(self);
}

/// Whether the actor has quit (its behavior ends after this message).
template <class Actor>
bool has_quit(const Actor* self) {
  // quit() marks the actor shutting down (CAF 0.17) or terminated.
  return self->getf(caf::abstract_actor::is_shutting_down_flag |
                    caf::abstract_actor::is_terminated_flag);
}

/// Starts training or prediction at the actor: notes the time, marks it
/// busy (`busy`, &peer_state::training or &peer_state::predicting; null:
/// an actor that then only answers, within the idle bound), routes what
/// `start()` returns (an exception from it ends the actor: bad input),
/// calls `after(self)` unless the actor ended, and arms the ticks (see
/// keep_watch). The silence clock starts when start() returns, not before:
/// its work is not a peer's silence.
template <class Actor, class Start, class After>
void begin_work(Actor* self, bool peer_state::*busy, Start start, After after) {
  auto& st = self->state;
  busy_clock working{st.busy_seconds};
  st.started = clock_type::now();
  st.last_heard = now_of(self);
  st.progress_done = -1; // a new piece of work
  if (busy)
    st.*busy = true;
  decltype(start()) out;
  try {
    out = start();
  } catch (const std::exception& e) {
    self->quit(session_error(protocols::session::errc::bad_input,
                             st.me + ": " + e.what()));
    return;
  }
  st.last_heard = now_of(self);
  route(self, std::move(out));
  if (has_quit(self))
    return;
  after(self);
  if (!has_quit(self))
    keep_watch(self);
}

/// Handles a protocol message `m` (a role's message variant): checks that
/// a peer sent it, counts its bytes, notes when the peer was heard and
/// what it sent, ends the actor on a reported Failure, hands it to the
/// role with `handle(from, m)` (an outcome of an outbox), routes the
/// answer, routes what each `resume()` then gives (an optional outcome: the
/// role's work that waits until its answer is on its way) until it gives
/// none, and calls `after(self)`. The silence clock restarts when the
/// handler returns: the party's own work is not a peer's silence. A message the
/// role refuses goes back to its sender as a Failure and ends the actor, naming
/// the sender and the step.
template <class Failure, class Actor, class Message, class Handle, class Resume,
          class After>
void handle_wire(Actor* self, Message m, Handle handle, Resume resume,
                 After after) {
  using protocols::session::errc;
  auto& st = self->state;
  busy_clock working{st.busy_seconds};
  auto sender = self->current_sender();
  auto q = sender ? st.slot_of(caf::actor_cast<caf::actor_addr>(sender))
                  : peer_state::none;
  std::string name = message_name(m);
  if (q == peer_state::none) {
    // A stranger's (anyone who learned this actor's id): dropped and
    // logged, never obeyed and never a reason to end the session.
    std::cerr << "veil: warning: " << st.me << " dropped a " << name
              << " message from " << sender_text(self)
              << ": not a peer of this session\n";
    return;
  }
  auto& nb = st.neighbours[q];
  auto from = nb.index;
  const auto& peer = nb.name;
  auto what = step_text(name, m);
  st.bytes[name].received += messages::wire_bytes(m);
  st.last_heard = now_of(self);
  nb.heard = st.last_heard;
  nb.heard_what = what;
  nb.owes_since.reset();
  st.links.heard_from(q);
  if (auto* f = std::get_if<Failure>(&m)) {
    self->quit(
        session_error(errc::protocol_error,
                      peer + " failed at step " + f->step + ": " + f->reason));
    return;
  }
  if (!st.has_role()) {
    self->quit(session_error(errc::bad_request,
                             st.me + " got a " + name + " from " + peer +
                                 " before its role was set up"));
    return;
  }
  auto out = handle(from, m);
  for (;;) {
    st.last_heard = now_of(self);
    if (!out)
      break;
    st.step = what;
    route(self, std::move(*out));
    if (has_quit(self))
      return;
    // The work the message brought that waits until its answer is out.
    auto more = resume();
    if (!more)
      break;
    out = std::move(*more);
  }
  if (!out) {
    const auto& e = out.error();
    if (e.bad_input) {
      // Every peer finds the same from the same messages: no failure
      // message, so that all report the data, not each other.
      self->quit(session_error(errc::bad_input,
                               st.me + " at step " + e.step + ": " + e.reason));
      return;
    }
    using outbox = std::decay_t<decltype(*out)>;
    auto blame = from;
    if (e.culprit >= 0 && st.slot_of(e.culprit) != peer_state::none)
      blame = e.culprit;
    route(self, outbox{{blame, Failure{e.step, e.reason}}});
    self->quit(session_error(errc::protocol_error,
                             st.me + " refused a " + what + " from " +
                                 st.name_of(blame) + " at step " + e.step +
                                 ": " + e.reason));
    return;
  }
  after(self);
  if (!has_quit(self))
    keep_watch(self);
}

/// handle_wire for a role that never defers work.
template <class Failure, class Actor, class Message, class Handle, class After>
void handle_wire(Actor* self, Message m, Handle handle, After after) {
  using answer = decltype(handle(0, std::declval<Message&>()));
  handle_wire<Failure>(
      self, std::move(m), handle, [] { return std::optional<answer>{}; },
      after);
}

/// Whom a stalled party waits for: the neighbours never heard from (the
/// first five named, then how many more), else the one heard from least
/// recently, with what it last sent.
inline std::string silent_peers(const std::vector<neighbour>& neighbours,
                                clock_type::time_point now) {
  std::string never;
  std::size_t unheard = 0;
  const neighbour* oldest = nullptr;
  for (const auto& n : neighbours) {
    if (!n.heard) {
      if (++unheard <= 5)
        never += (never.empty() ? "" : ", ") + n.name;
    } else if (!oldest || *n.heard < *oldest->heard) {
      oldest = &n;
    }
  }
  if (unheard > 5)
    never += " and " + std::to_string(unheard - 5) + " more";
  if (!never.empty())
    return "nothing ever came from " + never;
  if (!oldest)
    return "no peers";
  return "the longest silent is " + oldest->name + " (for " +
         seconds_text(std::chrono::duration_cast<std::chrono::milliseconds>(
             now - *oldest->heard)) +
         ", since its " + oldest->heard_what + ")";
}

/// The neighbours that owe an answer for longer than `timeout` ("mute did
/// not answer within 0.3 s at step setup; ..."); empty if none does.
inline std::string late_answers(const std::vector<neighbour>& neighbours,
                                std::chrono::milliseconds timeout,
                                clock_type::time_point now) {
  std::string late;
  std::size_t count = 0;
  for (const auto& n : neighbours)
    if (n.owes_since && now - *n.owes_since > timeout && ++count <= 5)
      late += (late.empty() ? "" : "; ") + n.name + " did not answer within " +
              seconds_text(timeout) + " at step " + n.owed_for;
  if (count > 5)
    late += "; and " + std::to_string(count - 5) + " more";
  return late;
}

/// A liveness tick: a busy actor (training or predicting) that heard from
/// no peer within its timeout since it last finished its own work ends,
/// naming the step and whom it waits for (the peers that owe it an
/// answer, else the silent ones); so does an answering one (see
/// keep_watch) after its idle bound; otherwise a busy one repeats its
/// progress report and the next tick is armed.
template <class Actor>
void on_tick(Actor* self, std::uint64_t epoch) {
  auto& st = self->state;
  if (epoch != st.tick_epoch)
    return;
  st.ticking = false;
  if (!st.busy()) {
    if (!st.answering)
      return;
    auto now = now_of(self);
    if (now - st.last_heard > st.idle) {
      self->quit(session_error(
          protocols::session::errc::timeout,
          st.me + " waited for a message from its peers for " +
              seconds_text(st.idle) + " (net.idle_timeout) after step " +
              st.step + ": " + silent_peers(st.neighbours, now)));
      return;
    }
    arm_ticks(self);
    return;
  }
  auto now = now_of(self);
  if (now - st.last_heard > st.timeout) {
    auto late = late_answers(st.neighbours, st.timeout, now);
    self->quit(session_error(
        protocols::session::errc::timeout,
        st.me + " heard from no peer within " + seconds_text(st.timeout) +
            " (" + (st.training ? "train" : "predict") + ", last step " +
            st.step + "): " +
            (late.empty()
                 ? silent_peers(st.neighbours, now)
                 : late + " (" + silent_peers(st.neighbours, now) + ")")));
    return;
  }
  if (st.progress_done >= 0)
    report_progress(self, static_cast<std::size_t>(st.progress_done),
                    static_cast<std::size_t>(st.progress_total),
                    st.training ? "train" : "predict");
  arm_ticks(self);
}

// -- model parts
// ------------------------------------------------------------

/// Why a restore request is refused (a party with its role already, before
/// the roster, or without the rows to predict).
inline constexpr const char* restore_precondition =
    "restore a model part after the roster, into a party without a role, "
    "with the rows to predict loaded";

/// Refuses a model part request that does not come from the coordinator
/// or comes while the party works; none if it may be served.
template <class Actor>
std::optional<caf::error> refuse_part_request(Actor* self) {
  const auto& st = self->state;
  if (!from_coordinator(self) || st.busy())
    return session_error(protocols::session::errc::bad_request,
                         st.me + ": a model part request from the "
                                 "coordinator, between steps only");
  return std::nullopt;
}

// -- a party's data
// ------------------------------------------------------------

/// The training and test rows a party loaded from its files.
struct party_data {
  learners::dataset train, test;
  bool train_loaded = false;
  bool test_loaded = false;
  /// The test rows are the training rows (no test file): nothing to
  /// evaluate rounds on.
  bool test_is_train = false;
};

/// A party's file as load_party_data reads it by default: the label
/// column, if the spec names one, as labels. Throws on bad input, naming
/// the file, line and column but quoting no cell (the error reaches the
/// coordinator, another party's process).
inline learners::dataset
read_party_file(const protocols::session::data_spec& spec) {
  learners::read_options o;
  o.label = spec.label_column;
  o.id = spec.id_column;
  o.columns = spec.feature_columns;
  o.redact_values = true; // its errors go to the coordinator
  return learners::read_table(spec.path, o);
}

/// A load request at party `me`: reads the file with `read(r.data)` (a
/// dataset; throws on bad input) or copies the training rows, stores the
/// rows in `d` without their ids, and returns what the coordinator aligns
/// them by (the ids, the columns). Errors name `me` and the file.
template <class Read>
caf::expected<protocols::session::data_summary>
load_party_data(const std::string& me, const hosting& host,
                const protocols::session::load_request& r, party_data& d,
                Read read) {
  using protocols::session::errc;
  learners::dataset rows;
  auto spec = r.data;
  if (host.hosted() && !(r.test && r.same_as_train)) {
    try {
      spec = served_spec(host, spec);
    } catch (const input_error& e) {
      return session_error(errc::bad_input, me + ": " + e.what());
    }
  }
  // A hosted party's errors reach another organisation's coordinator: they
  // name its datasets, not their paths; the node's log has them in full.
  auto bad_input = [&](const std::string& what) {
    if (host.hosted())
      std::cerr << "veil: " << me << " could not load data \"" << r.data.path
                << "\": " << what << std::endl;
    return session_error(errc::bad_input,
                         me + ": " + without_paths(host, what));
  };
  if (r.test && r.same_as_train) {
    // Nothing is opened: the request's path is not even looked at.
    if (!d.train_loaded)
      return session_error(errc::bad_request,
                           me + ": test rows = training rows, but no training "
                                "data is loaded");
    rows = d.train;
  } else {
    try {
      // Rows to predict without their label column: no labels, no metrics.
      if (r.labels_optional && !spec.label_column.empty() &&
          !learners::is_libsvm_path(spec.path)) {
        auto header = learners::csv_header(spec.path);
        if (std::find(header.begin(), header.end(), spec.label_column) ==
            header.end())
          spec.label_column.clear();
      }
    } catch (const std::exception&) {
      // the read below names the file and what is wrong with it
    }
    try {
      rows = read(spec);
    } catch (const input_error& e) {
      return bad_input(e.what());
    } catch (const std::exception& e) {
      return bad_input("cannot read " + spec.path + ": " + e.what());
    }
  }
  if (spec.label_column.empty())
    rows.labels().clear(); // LibSVM rows always carry one: not this party's
  protocols::session::data_summary s;
  s.rows = rows.rows();
  s.feature_names = rows.feature_names();
  s.has_labels = rows.has_labels();
  for (float y : rows.labels())
    s.labels += std::isnan(y) ? 0 : 1;
  s.ids = std::move(rows.ids()); // the coordinator aligns
  rows.ids().clear();
  (r.test ? d.test : d.train) = std::move(rows);
  (r.test ? d.test_loaded : d.train_loaded) = true;
  if (r.test)
    d.test_is_train = r.same_as_train;
  return s;
}

/// The same, reading the file with read_party_file.
inline caf::expected<protocols::session::data_summary>
load_party_data(const std::string& me, const hosting& host,
                const protocols::session::load_request& r, party_data& d) {
  return load_party_data(me, host, r, d, read_party_file);
}

/// An align request at party `me`: reorders the loaded rows; their count.
inline caf::expected<std::uint64_t>
align_party_data(const std::string& me,
                 const protocols::session::align_request& r, party_data& d) {
  if (!(r.test ? d.test_loaded : d.train_loaded))
    return session_error(protocols::session::errc::bad_request,
                         me + ": align before load");
  auto& rows = r.test ? d.test : d.train;
  if (auto msg = apply_order(rows, r.rows); !msg.empty())
    return session_error(protocols::session::errc::bad_request,
                         me + ": " + msg);
  return static_cast<std::uint64_t>(rows.rows());
}

/// The state of a party whose data is either given at spawn (`given`) or
/// loaded from its own files (`loaded`) before its role exists.
template <class Spec>
struct data_party_state : peer_state {
  std::optional<Spec> given; ///< given at spawn (then `loaded` stays empty)
  party_data loaded;
  std::optional<std::uint64_t> test_seed; ///< tests only: seeded noise
  std::int32_t seed_index = 0;
};

/// The error for a load request a data party must refuse (after its role
/// exists, or when it was given its data at spawn); none if it may load.
template <class Actor>
std::optional<caf::error> refuse_load(const Actor* self) {
  const auto& st = self->state;
  if (!st.given && !st.has_role())
    return std::nullopt;
  return session_error(protocols::session::errc::bad_request,
                       st.me + ": load after the session started, or for a "
                               "party given its data at spawn");
}

/// Answers an align request of a data party: its loaded rows in the
/// coordinator's order, before its roster only.
template <class Actor>
caf::result<std::uint64_t>
align_loaded(Actor* self, const protocols::session::align_request& r) {
  auto& st = self->state;
  if (st.has_role())
    return session_error(protocols::session::errc::bad_request,
                         st.me + ": align after the roster");
  auto n = align_party_data(st.me, r, st.loaded);
  if (!n)
    return std::move(n.error());
  return *n;
}

// -- drivers ------------------------------------------------------------------

/// The most parties of a mesh session (every pair of parties linked; each
/// party holds every other's keys) and of a star (each leaf holds the hub
/// only).
inline constexpr std::size_t max_mesh_parties = 256;
inline constexpr std::size_t max_star_parties = 100000;

/// Checks what a driver is given: `n` party actors of `protocol` (from 2
/// to `most` `kind`s, "parties" or "clients"; `why` says why 2, in
/// parentheses), as many names and, if any, load specs, and a positive
/// timeout. Throws input_error.
inline void check_actors(const std::string& protocol, const std::string& kind,
                         const std::string& why, std::size_t n,
                         std::size_t names, std::size_t loads,
                         std::chrono::milliseconds timeout,
                         std::size_t most = max_mesh_parties) {
  if (n < 2)
    throw input_error(protocol + " needs at least 2 " + kind + " (" + why +
                      "), got " + std::to_string(n));
  if (n > most)
    throw input_error(protocol + " supports at most " + std::to_string(most) +
                      " " + kind + ", got " + std::to_string(n));
  if (names != n || (loads != 0 && loads != n))
    throw input_error("the session has " + std::to_string(n) + " " + kind +
                      " but " + std::to_string(names) + " names");
  if (timeout.count() <= 0)
    throw input_error("the timeout must be positive");
}

/// A session in progress on its driver's side (a scoped actor): requests to
/// every party in turn, and waiting for the parties' results, with the
/// first failure kept in `error` (an Outcome, see local_system.hpp).
template <class Outcome>
struct session_driver {
  caf::scoped_actor& self;
  const std::vector<caf::actor>& parties;
  /// By index: the names in errors.
  const std::vector<std::string>& names;
  std::chrono::milliseconds timeout;
  std::optional<Outcome> error;
  /// What the driver is doing, for errors ("roster", "train").
  std::string step = "session setup";
  /// Party index by address, built on first use (a star may have
  /// thousands of parties: no linear search per reply).
  std::unordered_map<caf::actor_addr, std::size_t> index_by_addr = {};
  /// Called with each progress report an awaited party sends (see
  /// await_each).
  std::function<void(const protocols::session::progress_report&)> on_progress =
      {};
  /// Set while awaiting a party that reports its progress (plain's active
  /// party): silence longer than this fails the step.
  std::optional<std::chrono::milliseconds> progress_bound = {};

  /// The index of the party `sender` is, or -1.
  std::int32_t party_of(const caf::strong_actor_ptr& sender) {
    if (!sender)
      return -1;
    if (index_by_addr.empty())
      for (std::size_t c = 0; c < parties.size(); ++c)
        index_by_addr.emplace(parties[c].address(), c);
    auto it = index_by_addr.find(caf::actor_cast<caf::actor_addr>(sender));
    return it == index_by_addr.end() ? -1
                                     : static_cast<std::int32_t>(it->second);
  }

  std::size_t size() const { return parties.size(); }
  const std::string& name(std::size_t c) const { return names[c]; }

  void fail(protocols::session::errc code, std::string message) {
    if (!error)
      error = failed<Outcome>(code, std::move(message));
  }

  /// Party c's error reply.
  void fail(const caf::error& e, std::size_t c) {
    if (error)
      return;
    if (e == caf::sec::request_timeout)
      fail(protocols::session::errc::timeout,
           name(c) + " did not answer within " + seconds_text(timeout) +
               " at step " + step);
    else
      error = from_error<Outcome>(e, name(c) + " (at step " + step + ")");
  }

  /// One request per party in `to` (all: empty), all sent at once: the
  /// elements `make(c)` returns (a tuple, or a caf::message that every
  /// party's request shares); `on_reply(c, reply)` for each, in the
  /// order the replies come. A party that ends before it answers (the
  /// driver monitors the parties) fails the step at once, named; one that
  /// does not answer within the timeout, when it passes. A party answers
  /// with its handler's result (an error too), sent back as a message.
  template <class Reply, class Make, class OnReply>
  void ask_all(std::string what, Make make, OnReply on_reply,
               std::vector<std::size_t> to = {}) {
    step = std::move(what);
    if (error)
      return;
    if (to.empty())
      for (std::size_t c = 0; c < size(); ++c)
        to.push_back(c);
    std::vector<bool> asked(size(), false), got(size(), false);
    for (auto c : to) {
      asked[c] = true;
      if constexpr (std::is_same_v<decltype(make(c)), caf::message>)
        self->send(parties[c], make(c)); // one shared message, not copied
      else
        std::apply([&](auto&&... xs) { self->send(parties[c], xs...); },
                   make(c));
    }
    std::size_t missing = to.size();
    auto deadline = clock_type::now() + timeout;
    auto period = tick_period(timeout);
    auto interrupted = [&] {
      if (interrupt_requested())
        fail(protocols::session::errc::interrupted,
             "interrupted at step " + step);
      return error.has_value();
    };
    // The party the current message comes from, if it was asked and has
    // not answered yet.
    auto asker = [&]() -> std::optional<std::size_t> {
      auto q = party_of(self->current_sender());
      if (q < 0 || !asked[static_cast<std::size_t>(q)] ||
          got[static_cast<std::size_t>(q)])
        return std::nullopt;
      got[static_cast<std::size_t>(q)] = true;
      --missing;
      return static_cast<std::size_t>(q);
    };
    while (missing > 0 && !interrupted()) {
      self->receive(
          [&](Reply& r) {
            if (auto c = asker())
              on_reply(*c, r);
          },
          [&](caf::error& e) {
            if (auto c = asker())
              fail(e, *c);
          },
          [&](caf::down_msg& dm) {
            auto q =
                party_of(caf::actor_cast<caf::strong_actor_ptr>(dm.source));
            if (q < 0)
              return;
            if (dm.reason.category() == caf::atom("veil"))
              fail(code_of(dm.reason), describe(dm.reason));
            else
              fail(protocols::session::errc::party_down,
                   name(static_cast<std::size_t>(q)) + " ended at step " +
                       step + " (" +
                       (dm.reason ? describe(dm.reason) : "no reason") + ")");
          },
          caf::after(period) >>
              [&] {
                if (clock_type::now() < deadline)
                  return;
                std::string late;
                for (auto c : to)
                  if (!got[c])
                    late += (late.empty() ? "" : ", ") + name(c);
                fail(protocols::session::errc::timeout,
                     late + " did not answer within " + seconds_text(timeout) +
                         " at step " + step);
              });
    }
  }

  /// Hands out the roster of `run`'s parties: one message for all (each
  /// finds itself in it by its address), a star around `hub` (-1: a mesh),
  /// with the protocol's `settings` (what the role host unpacks for its
  /// hooks' join).
  template <class Settings>
  void hand_out_roster(const session_run& run, std::int32_t hub,
                       const Settings& settings) {
    auto message = caf::make_message(
        messages::peers_atom::value,
        protocols::session::roster{-1, run.names, run.timeout.count(), run.link,
                                   hub, messages::pack(settings)},
        parties);
    ask_all<caf::ok_atom>(
        "roster", [&](std::size_t) { return message; },
        [](std::size_t, caf::ok_atom) {});
  }

  /// Has every party load its training (`test`: test) file named by its
  /// spec in `specs` (same order); `on_reply(c, reply)` for each.
  /// `labels_optional`: a file without the label column is read without
  /// labels (a prediction session's rows).
  template <class Reply, class OnReply>
  void load_all(bool test, const std::vector<party_spec>& specs,
                OnReply on_reply, bool labels_optional = false) {
    ask_all<Reply>(
        test ? "load test data" : "load training data",
        [&](std::size_t c) {
          protocols::session::load_request r{test, false, specs[c].data,
                                             labels_optional};
          if (test)
            r.data.path = specs[c].test_path;
          return std::make_tuple(messages::load_atom::value, std::move(r));
        },
        std::move(on_reply));
  }

  /// Loads the rows of `run`'s parties: their training rows (none in a
  /// prediction session) and their test rows when they name test files
  /// (a prediction session's without labels if they have none); has
  /// `check(train, test)` refuse them by the protocol's rule of who holds
  /// labels (a message: bad input); aligns them on the id column, or by
  /// position, into party 0's order (align_loaded).
  template <class Check>
  void load_rows(const session_run& run,
                 std::vector<protocols::session::data_summary>& train,
                 std::vector<protocols::session::data_summary>& test,
                 Check check) {
    for (bool is_test : {false, true}) {
      auto& out = is_test ? test : train;
      out.clear();
      if (is_test ? run.load[0].test_path.empty() : bool(run.restore))
        continue;
      out.assign(size(), {});
      load_all<protocols::session::data_summary>(
          is_test, run.load,
          [&](std::size_t c, protocols::session::data_summary& s) {
            out[c] = std::move(s);
          },
          run.restore.has_value());
    }
    if (error)
      return;
    if (auto msg = check(train, test); !msg.empty())
      return fail(protocols::session::errc::bad_input, std::move(msg));
    align_loaded(train, test, !run.load[0].data.id_column.empty());
  }

  /// Has every party keep its part of the trained model where it runs
  /// (`restore` false), or restore it for a prediction session; `fill(c,
  /// r)` adds what party c's request carries besides (the model, the
  /// columns).
  template <class Fill>
  void ask_parts(bool restore, const protocols::session::model_parts& parts,
                 Fill fill) {
    ask_all<std::uint64_t>(
        restore ? "restore model parts" : "save model parts",
        [&](std::size_t c) {
          protocols::session::part_request r;
          r.save = !restore;
          r.path = protocols::session::part_path(parts.path, name(c));
          r.model_id = parts.id;
          fill(c, r);
          return std::make_tuple(messages::part_atom::value, std::move(r));
        },
        [](std::size_t, std::uint64_t) {});
  }

  /// Has every party with an order in `orders` (align_rows; none: its rows
  /// are in order already) reorder its training (`test`: test) rows, and
  /// checks the row count it answers with.
  void reorder(bool test, row_orders& orders) {
    for (std::size_t c = 0; c < orders.size() && !error; ++c) {
      if (orders[c].empty())
        continue;
      auto expected = orders[c].size();
      ask_all<std::uint64_t>(
          "align",
          [&](std::size_t) {
            return std::make_tuple(
                messages::align_atom::value,
                protocols::session::align_request{test, std::move(orders[c])});
          },
          [&](std::size_t, std::uint64_t rows) {
            if (rows != expected)
              fail(protocols::session::errc::protocol_error,
                   name(c) + " has " + std::to_string(rows) +
                       " rows after alignment, expected " +
                       std::to_string(expected));
          },
          {c});
    }
  }

  /// Lines up the rows the parties loaded (their summaries: `train`,
  /// `test`; empty: not loaded): each party's test columns must be its
  /// training columns; then the rows are aligned on the id column (`ids`)
  /// or checked by position (align_rows), and every party reorders its
  /// rows into party 0's order. `test_is_train`: the test rows are the
  /// training rows (aligned once).
  void align_loaded(std::vector<protocols::session::data_summary>& train,
                    std::vector<protocols::session::data_summary>& test,
                    bool ids, bool test_is_train = false) {
    for (std::size_t c = 0; c < size() && !error; ++c)
      if (!train.empty() && !test.empty() && !test_is_train &&
          test[c].feature_names != train[c].feature_names)
        fail(protocols::session::errc::bad_input,
             name(c) + "'s test data has other feature columns than its "
                       "training data");
    row_orders train_orders, test_orders;
    for (auto [what, rows, orders] :
         {std::tuple{"training", &train, &train_orders},
          std::tuple{"test", &test, &test_orders}}) {
      if (error || rows->empty() || (rows == &test && test_is_train))
        continue;
      if (auto msg = align_rows(names, *rows, ids, what, *orders); !msg.empty())
        fail(protocols::session::errc::bad_input, msg);
    }
    if (test_is_train)
      test_orders = train_orders;
    reorder(false, train_orders);
    reorder(true, test_orders);
  }

  /// Waits for one message of type T from each party in `from` (results).
  /// A party's down message ends the wait: a party that aborted names
  /// itself and the step; for one that vanished (killed, its node gone)
  /// the others, which monitor it, name the step they were at, so their
  /// word is awaited up to the timeout. The driver monitors the parties.
  /// A party awaited may send progress reports: each goes to on_progress
  /// and names the step in errors ("train (3 of 10 trees done)"); with
  /// progress_bound set, a party silent for longer fails the wait.
  template <class T, class Store>
  void await_each(const std::vector<std::size_t>& from, Store store) {
    std::vector<bool> got(size(), false);
    std::size_t missing = from.size();
    std::optional<std::string> vanished;
    clock_type::time_point since;
    auto last_progress = clock_type::now();
    auto base_step = step;
    auto period = tick_period(timeout);
    while (missing > 0 && !error) {
      if (interrupt_requested()) {
        fail(protocols::session::errc::interrupted,
             "interrupted at step " + step);
        break;
      }
      self->receive(
          [&](protocols::session::progress_report& p) {
            auto q = party_of(self->current_sender());
            if (q < 0 || std::find(from.begin(), from.end(),
                                   static_cast<std::size_t>(q)) == from.end())
              return;
            last_progress = clock_type::now();
            if (p.total > 0)
              step = base_step + " (" + std::to_string(p.done) + " of " +
                     std::to_string(p.total) + " trees done)";
            if (on_progress)
              on_progress(p);
          },
          [&](caf::error& e) { // an awaited party refused the request
            auto q = party_of(self->current_sender());
            if (q >= 0 && !got[static_cast<std::size_t>(q)] &&
                std::find(from.begin(), from.end(),
                          static_cast<std::size_t>(q)) != from.end())
              fail(e, static_cast<std::size_t>(q));
          },
          [&](T& x) {
            auto q = party_of(self->current_sender());
            if (q < 0 || got[static_cast<std::size_t>(q)] ||
                std::find(from.begin(), from.end(),
                          static_cast<std::size_t>(q)) == from.end())
              return;
            got[static_cast<std::size_t>(q)] = true;
            --missing;
            store(static_cast<std::size_t>(q), x);
          },
          [&](caf::down_msg& dm) {
            auto q =
                party_of(caf::actor_cast<caf::strong_actor_ptr>(dm.source));
            if (q < 0)
              return;
            if (dm.reason.category() == caf::atom("veil")) {
              fail(code_of(dm.reason), describe(dm.reason));
            } else if (!vanished) {
              vanished = name(static_cast<std::size_t>(q)) + " ended at step " +
                         step + " (" +
                         (dm.reason ? describe(dm.reason) : "no reason") + ")";
              since = clock_type::now();
            }
          },
          caf::after(period) >>
              [&] {
                auto now = clock_type::now();
                if (vanished && now - since > timeout)
                  fail(protocols::session::errc::party_down, *vanished);
                else if (progress_bound &&
                         now - last_progress > *progress_bound)
                  fail(protocols::session::errc::timeout,
                       name(from.front()) + " reported no progress within " +
                           seconds_text(*progress_bound) + " at step " + step);
              });
    }
    step = base_step;
  }

  /// Every party's index (0, 1, ...).
  std::vector<std::size_t> all() const {
    std::vector<std::size_t> out(size());
    for (std::size_t c = 0; c < out.size(); ++c)
      out[c] = c;
    return out;
  }

  /// A protocol's train step: the train request to the parties in `to`,
  /// then each session::trained of the parties in `from` to `store(c,
  /// trained)`, with the protocol's report unpacked into `reports[c]` (a
  /// report that does not decode fails the step, naming its party). The
  /// wall time it took, in seconds.
  template <class Report, class Store>
  double train_step(const std::vector<std::size_t>& to,
                    const std::vector<std::size_t>& from,
                    std::vector<Report>& reports, Store store) {
    auto t0 = clock_type::now();
    step = "train";
    reports.resize(size());
    for (auto c : to)
      self->send(parties[c], messages::train_atom::value);
    await_trained(from, reports, store);
    return seconds_since(t0);
  }

  /// Each session::trained of the parties in `from` to `store(c, trained)`,
  /// its protocol report unpacked into `reports[c]` (one that does not
  /// decode fails the step, naming its party).
  template <class Report, class Store>
  void await_trained(const std::vector<std::size_t>& from,
                     std::vector<Report>& reports, Store& store) {
    await_each<protocols::session::trained>(
        from, [&](std::size_t c, protocols::session::trained& t) {
          if (!messages::unpack(t.report, reports[c]))
            fail(protocols::session::errc::protocol_error,
                 name(c) + " sent a training report that does not decode");
          store(c, t);
        });
  }

  /// Training evaluated round by round at the coordinator (early stopping
  /// where the labels are here): the train request to every party; each
  /// time all of them finished a tree (session::round_done), party 0
  /// predicts that tree on its eval rows ((predict_atom, first tree)),
  /// `watch` evaluates it (its metrics go to on_progress) and says whether
  /// to stop; then next_atom to every party, or (stop_atom, the best
  /// round's tree count) after which each party's session::trained goes to
  /// `store` as in train_step. At most `trees` trees (one per round: a
  /// binary or regression objective). The wall time, in seconds.
  template <class Report, class Store>
  double train_by_rounds(std::int32_t trees, std::vector<Report>& reports,
                         learners::round_watcher& watch, Store store) {
    auto t0 = clock_type::now();
    reports.resize(size());
    for (const auto& c : parties)
      self->send(c, messages::train_atom::value);
    for (std::int32_t tree = 1; !error; ++tree) {
      step = "train (tree " + std::to_string(tree) + ")";
      protocols::session::progress_report progress;
      await_each<protocols::session::round_done>(
          all(), [&](std::size_t c, protocols::session::round_done& r) {
            if (r.trees != tree)
              fail(protocols::session::errc::protocol_error,
                   name(c) + " finished tree " + std::to_string(r.trees) +
                       " where tree " + std::to_string(tree) + " was due");
            if (c == 0)
              progress.bytes = r.bytes;
          });
      if (error)
        break;
      step = "evaluate tree " + std::to_string(tree);
      self->send(parties[0], messages::predict_atom::value, tree - 1);
      bool stop = false;
      await_each<protocols::session::predicted>(
          {0}, [&](std::size_t, protocols::session::predicted& p) {
            try {
              stop = watch.add_round(p.margins) || tree >= trees;
            } catch (const std::invalid_argument& e) {
              fail(protocols::session::errc::protocol_error,
                   name(0) +
                       " predicted a round that does not fit: " + e.what());
            }
          });
      if (error)
        break;
      if (on_progress) {
        progress.phase = "train";
        progress.done = tree;
        progress.total = trees;
        protocols::session::put_metrics(watch.history().back().valid,
                                        progress.metric_names,
                                        progress.metric_values);
        on_progress(progress);
      }
      if (!stop) {
        for (const auto& c : parties)
          self->send(c, messages::next_atom::value);
        continue;
      }
      for (const auto& c : parties)
        self->send(c, messages::stop_atom::value,
                   static_cast<std::int32_t>(watch.outcome().best_round));
      step = "train";
      await_trained(all(), reports, store);
      break;
    }
    return seconds_since(t0);
  }

  /// A protocol's predict step: party 0 (which predicts for the session)
  /// is asked, its session::predicted goes to `store(predicted)`. The wall
  /// time it took, in seconds.
  template <class Store>
  double predict_step(Store store) {
    return predict_step({0}, std::move(store));
  }

  /// The predict step of a protocol where several parties compute every
  /// prediction (Privet's SecInfer): each party in `to` is asked; party
  /// 0's session::predicted goes to `store(predicted)`.
  template <class Store>
  double predict_step(const std::vector<std::size_t>& to, Store store) {
    auto t0 = clock_type::now();
    step = "predict";
    for (auto c : to)
      self->send(parties[c], messages::predict_atom::value);
    await_each<protocols::session::predicted>(
        {0}, [&](std::size_t, protocols::session::predicted& p) { store(p); });
    return seconds_since(t0);
  }

  /// Ends every party: with the outcome's error, so that each one that has
  /// not yet learned why the session ended ends with the reason.
  Outcome finish(Outcome out) {
    for (const auto& c : parties)
      if (out.ok())
        self->send_exit(c, caf::exit_reason::user_shutdown);
      else
        self->send_exit(c, session_error(out.code, out.error));
    return out;
  }
};

/// Notes the rows load_rows loaded in a protocol's result: how many, every
/// party's columns, and a prediction session's row ids (party 0's order,
/// the session's).
template <class Result>
void note_rows(Result& result,
               std::vector<protocols::session::data_summary>& train,
               std::vector<protocols::session::data_summary>& test) {
  result.rows = train.empty() ? 0 : train[0].rows;
  result.test_rows = test.empty() ? 0 : test[0].rows;
  for (auto& s : train.empty() ? test : train)
    result.features.push_back(std::move(s.feature_names));
  if (train.empty() && !test.empty())
    result.ids = std::move(test[0].ids);
}

} // namespace veil::actors
