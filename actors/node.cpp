#include "actors/node.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <map>
#include <ostream>
#include <thread>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/errors.hpp"
#include "actors/front_door.hpp"
#include "actors/hosting.hpp"
#include "actors/interfaces.hpp"
#include "actors/remote.hpp"
#include "learners/input_error.hpp"
#include "messages/register.hpp"
#include "messages/session.hpp"
#include "messages/version.hpp"

namespace veil::actors {

net_config::net_config(int threads, const tls_files& tls) {
  messages::register_types(*this);
  load<caf::io::middleman>();
  // TLS is the relays' (actors/front_door.hpp): the middleman speaks BASP
  // on 127.0.0.1 only.
  (void)tls;
  // A node that hangs with its connection open (stopped, cut off without a
  // reset) is declared dead when nothing came from it for the connection
  // timeout: its actors' monitors fire and the sessions end, naming the
  // party. Heartbeats (off by default in CAF 0.17) keep an idle link alive.
  // The BASP broker runs on the scheduler, hence at least 2 threads: one
  // party's long step (Party A trains every tree in one step) must not
  // starve its heartbeats.
  set("middleman.heartbeat-interval", caf::timespan{std::chrono::seconds{10}});
  set("middleman.connection-timeout", caf::timespan{std::chrono::seconds{120}});
  auto n =
      threads > 0
          ? threads
          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  set("scheduler.max-threads", std::max(n, 2));
  set("scheduler.policy", caf::atom("sharing"));
}

namespace {

namespace session = protocols::session;
using session::errc;
using namespace std::chrono_literals;

struct node_state {
  static inline const char* name = "veil.node";
  bool once = false;
  bool served = false;
  std::vector<party_kind> kinds;
  std::shared_ptr<const node_catalog> catalog;
  /// The parties spawned for each requester (a session's coordinator side).
  std::map<caf::actor_addr, std::vector<caf::actor>> sessions;
  /// Each party's name, for the log.
  std::map<caf::actor_addr, std::string> names;
  /// Stopped: it ends when its last party has.
  bool stopping = false;
};

using node_pointer = node_actor::stateful_pointer<node_state>;

std::string sender_text(const caf::strong_actor_ptr& p) {
  if (!p)
    return "an anonymous sender";
  return "actor " + std::to_string(p->id()) + node_text(p);
}

void forget_party(node_pointer self, const caf::actor_addr& addr) {
  auto& st = self->state;
  for (auto i = st.sessions.begin(); i != st.sessions.end(); ++i) {
    auto& v = i->second;
    auto it = std::find_if(v.begin(), v.end(), [&](const caf::actor& a) {
      return a.address() == addr;
    });
    if (it == v.end())
      continue;
    v.erase(it);
    if (v.empty()) {
      self->demonitor(i->first);
      st.sessions.erase(i);
    }
    break;
  }
  if (st.once && st.served && st.sessions.empty())
    self->quit();
}

/// Spawns a party of the kind called `kind` among `kinds`; an unknown kind
/// is a bad_request error that lists the known ones.
caf::expected<caf::actor> spawn_hosted(caf::actor_system& sys,
                                       const std::vector<party_kind>& kinds,
                                       const std::string& kind,
                                       std::string name, const hosting& host) {
  std::string known;
  for (const auto& k : kinds) {
    if (kind == k.name)
      return k.spawn(sys, std::move(name), host);
    known += (known.empty() ? "" : ", ") + std::string(k.name);
  }
  return session_error(errc::bad_request, "cannot start party " + name +
                                              ": unknown protocol "
                                              "kind \"" +
                                              kind + "\" (this node hosts " +
                                              known + " parties)");
}

node_actor::behavior_type node_impl(node_pointer self, bool once,
                                    std::vector<party_kind> kinds,
                                    node_catalog catalog) {
  self->state.once = once;
  self->state.kinds = std::move(kinds);
  self->state.catalog =
      std::make_shared<const node_catalog>(std::move(catalog));
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& st = self->state;
    auto i = st.sessions.find(dm.source);
    if (i != st.sessions.end()) {
      // The coordinator's side went away: end its parties (their down
      // messages then close the session here).
      auto reason = session_error(errc::party_down,
                                  "the coordinator of the session ended (" +
                                      describe(dm.reason) + ")");
      for (auto& p : i->second)
        self->send_exit(p, reason);
      return;
    }
    if (auto n = self->state.names.find(dm.source);
        n != self->state.names.end()) {
      // The node's log says how each party ended.
      if (dm.reason && dm.reason != caf::exit_reason::normal)
        std::cout << "party " << n->second << " ended: " << describe(dm.reason)
                  << std::endl;
      else
        std::cout << "party " << n->second << " finished" << std::endl;
      self->state.names.erase(n);
    }
    forget_party(self, dm.source);
    if (self->state.stopping && self->state.names.empty())
      self->quit(caf::exit_reason::user_shutdown);
  });
  // Stopped (SIGINT or SIGTERM): the parties it hosts end with it, so that
  // their sessions fail at once, naming them, and the process can exit.
  self->set_exit_handler([=](caf::exit_msg& m) {
    auto& st = self->state;
    if (st.names.empty()) {
      self->quit(m.reason);
      return;
    }
    // It ends once every party has (their ends reach their sessions first).
    st.stopping = true;
    for (auto& [requester, parties] : st.sessions)
      for (auto& p : parties) {
        auto n = st.names.find(p.address());
        self->send_exit(
            p, session_error(errc::party_down,
                             (n == st.names.end() ? "a party" : n->second) +
                                 ": its node (veil node) was stopped"));
      }
  });
  self->set_default_handler(
      [=](caf::scheduled_actor* ptr,
          caf::message_view& x) -> caf::result<caf::message> {
        auto what = x.copy_content_to_message();
        return session_error(errc::bad_request,
                             "the node got an unexpected message " +
                                 unexpected_text(what) + " from " +
                                 sender_text(ptr->current_sender()));
      });
  return {
      [=](messages::spawn_atom, std::string& name, std::string& kind,
          std::string& handshake,
          std::vector<std::string>& datasets) -> caf::result<caf::actor> {
        auto& st = self->state;
        auto requester = self->current_sender();
        if (!requester)
          return session_error(errc::bad_request,
                               "node: a spawn request needs a sender");
        auto refuse = [&](std::string why) {
          std::cout << "refused a party for " << sender_text(requester) << ": "
                    << why << std::endl;
          return session_error(errc::bad_request, std::move(why));
        };
        if (!protocols::session::valid_name(name))
          return refuse("cannot start party \"" + printable(name) +
                        "\": a party name is made of letters, digits, '_', "
                        "'-' and '.'");
        if (auto why = refuse_datasets(*st.catalog, datasets); !why.empty())
          return refuse("cannot start party " + name + ": " + why);
        if (handshake != messages::handshake())
          return session_error(errc::bad_request,
                               "cannot start party " + name +
                                   ": this node runs " + messages::handshake() +
                                   ", the coordinator " + handshake +
                                   "; run the same Veil build on every node");
        auto addr = caf::actor_cast<caf::actor_addr>(requester);
        if (st.stopping)
          return session_error(errc::party_down, "cannot start party " + name +
                                                     ": the node is stopping");
        if (st.once && st.served && !st.sessions.contains(addr))
          return session_error(errc::bad_request,
                               "node: started with --once, it has served "
                               "its session already");
        hosting host{st.catalog, datasets,
                     caf::actor_cast<caf::actor_addr>(requester)};
        auto party =
            spawn_hosted(self->system(), st.kinds, kind, name, std::move(host));
        if (!party)
          return party.error();
        auto handle = *party;
        self->monitor(handle);
        if (!st.sessions.contains(addr))
          self->monitor(requester);
        st.sessions[addr].push_back(handle);
        st.names[handle.address()] = name;
        st.served = true;
        std::string loads;
        for (const auto& d : datasets)
          loads += (loads.empty() ? "" : ", ") + d;
        std::cout << "party " << name << " started (" << kind << ") for "
                  << sender_text(requester) << ", datasets "
                  << (loads.empty() ? "none" : loads) << std::endl;
        return handle;
      },
  };
}

std::atomic<int> stop_signal{0};

extern "C" void on_stop_signal(int signal) {
  stop_signal = signal;
}

} // namespace

caf::actor spawn_node(caf::actor_system& sys, bool once,
                      std::vector<party_kind> kinds, node_catalog catalog) {
  return caf::actor_cast<caf::actor>(
      sys.spawn(node_impl, once, std::move(kinds), std::move(catalog)));
}

int serve_node(const node_options& opts, std::ostream& out, std::ostream& err) {
  net_config cfg(opts.threads, opts.tls);
  caf::actor_system sys{cfg};
  auto node = sys.spawn(node_impl, opts.once, opts.kinds, opts.catalog);
  // The middleman on 127.0.0.1; the world reaches it through the door.
  auto inner = sys.middleman().publish(node, 0, "127.0.0.1", true);
  std::unique_ptr<front_door> door;
  std::string why;
  if (inner) {
    try {
      door = std::make_unique<front_door>(
          front_door::options{opts.host, opts.port, *inner, opts.tls,
                              opts.allow, opts.limits},
          out);
    } catch (const std::exception& e) {
      why = e.what();
    }
  } else {
    why = "cannot listen on 127.0.0.1: " + sys.render(inner.error());
  }
  if (!door) {
    err << "veil: error: " << why << std::endl;
    caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
    return 1;
  }
  stop_signal = 0;
  std::signal(SIGINT, on_stop_signal);
  std::signal(SIGTERM, on_stop_signal);
  out << "listening on " << opts.host << ":" << door->port()
      << (opts.tls.enabled() ? " (TLS)" : "") << std::endl;
  caf::scoped_actor self{sys};
  self->monitor(node);
  bool done = false;
  while (!done && stop_signal == 0)
    self->receive([&](caf::down_msg&) { done = true; },
                  caf::after(200ms) >> [] {});
  if (int sig = stop_signal; sig != 0) {
    out << "stopping (" << (sig == SIGINT ? "SIGINT" : "SIGTERM")
        << "): the parties this node hosts end with it" << std::endl;
    caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
    // Its parties end first; then a moment for their ends to reach their
    // sessions over the network before the connections close.
    self->receive([&](caf::down_msg&) {}, caf::after(5s) >> [] {});
    std::this_thread::sleep_for(300ms);
    return 0;
  }
  caf::anon_send_exit(node, caf::exit_reason::user_shutdown);
  return 0;
}

std::optional<spawn_failure>
spawn_parties(caf::actor_system& sys, caf::scoped_actor& self,
              const std::vector<party_spec>& specs, const tls_files& tls,
              std::chrono::milliseconds timeout, const party_kind& kind,
              std::vector<caf::actor>& out,
              std::vector<std::unique_ptr<tunnel>>& tunnels) {
  auto fail = [&](errc code, std::string error) {
    for (auto& p : out)
      caf::anon_send_exit(p, caf::exit_reason::user_shutdown);
    out.clear();
    return spawn_failure{code, std::move(error)};
  };
  std::map<std::string, node_actor> nodes;
  for (const auto& p : specs) {
    if (!p.is_remote()) {
      out.push_back(kind.spawn(sys, p.name, hosting{}));
      continue;
    }
    auto where = p.host + ":" + std::to_string(p.port);
    auto it = nodes.find(where);
    if (it == nodes.end()) {
      // Through a relay of ours: TLS with the node's host name checked, and
      // what the node sends bounded before CAF reads it.
      std::unique_ptr<tunnel> t;
      try {
        t = std::make_unique<tunnel>(p.host, p.port, tls);
      } catch (const std::exception& e) {
        return fail(errc::bad_input, e.what());
      }
      auto node = sys.middleman().remote_actor<node_actor>("127.0.0.1",
                                                           t->local_port());
      if (!node) {
        auto why = t->error();
        auto error = "cannot connect to party " + p.name + "'s node at " +
                     where + (tls.enabled() ? " over TLS" : "") + ": " +
                     (why.empty() ? sys.render(node.error()) : why);
        if (tls.enabled())
          error += " (the node's certificate must be signed by the "
                   "[tls] ca and name the host dialled; the node must trust "
                   "this coordinator's certificate and, if it runs with "
                   "--allow, admit it: the node's log says why it closed a "
                   "connection)";
        else
          error += " (is `veil node --listen " + where +
                   "` running there, without TLS?)";
        return fail(errc::party_down, std::move(error));
      }
      tunnels.push_back(std::move(t));
      it = nodes.emplace(where, *node).first;
    }
    std::optional<spawn_failure> failure;
    // The node's names of the datasets it will load (never paths).
    std::vector<std::string> datasets{p.data.path};
    if (!p.test_path.empty() && p.test_path != p.data.path)
      datasets.push_back(p.test_path);
    self->request(it->second, timeout, messages::spawn_atom::value, p.name,
                  std::string(kind.name), messages::handshake(),
                  std::move(datasets))
        .receive([&](caf::actor& a) { out.push_back(std::move(a)); },
                 [&](caf::error& e) {
                   failure = fail(code_of(e), "the node at " + where +
                                                  " did not start party " +
                                                  p.name + ": " + describe(e));
                 });
    if (failure)
      return failure;
  }
  return std::nullopt;
}

} // namespace veil::actors
