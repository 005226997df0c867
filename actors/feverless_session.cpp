#include "actors/feverless_session.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <variant>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/atom.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/exit_reason.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/errors.hpp"
#include "actors/local_system.hpp"
#include "learners/input_error.hpp"
#include "messages/feverless.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/crypto/random.hpp"

namespace veil::actors {

namespace {

namespace fv = protocols::feverless;
namespace session = protocols::session;
namespace fvl = messages::fvl;
using session::errc;
using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct byte_count {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};

/// Everything a client actor is spawned with.
struct client_setup {
  feverless_client_spec spec;
  fv::params params;
  std::int32_t index = 0;
  std::int32_t parties = 0;
  std::optional<std::uint64_t> test_seed;
};

struct client_state {
  static inline const char* name = "veil.feverless_client";

  std::shared_ptr<client_setup> setup;
  std::optional<protocols::crypto::identity> identity;
  std::unique_ptr<fv::client> role;
  std::vector<std::string> names;
  std::vector<caf::actor> peers;
  std::vector<caf::actor_addr> peer_addrs;
  caf::actor coordinator;
  std::chrono::milliseconds timeout{60000};

  bool training = false;
  bool predicting = false;
  clock_type::time_point started;
  clock_type::time_point last_heard;
  std::string step = "session setup"; // the last message handled or sent
  std::uint64_t tick_epoch = 0;
  bool ticking = false;

  std::map<std::string, byte_count> bytes;

  std::int32_t peer_index(const caf::actor_addr& addr) const {
    for (std::size_t i = 0; i < peer_addrs.size(); ++i)
      if (peer_addrs[i] == addr && static_cast<std::int32_t>(i) != self())
        return static_cast<std::int32_t>(i);
    return -1;
  }
  std::int32_t self() const { return setup->index; }
  const std::string& me() const { return setup->spec.name; }
  bool busy() const { return training || predicting; }
};

using client_actor = caf::stateful_actor<client_state>;

template <class T>
std::string to_text(const T& x) {
  if constexpr (std::is_same_v<T, std::string>)
    return x;
  else
    return std::to_string(x);
}

/// "masked_sums (tree 3, depth 2)".
std::string step_of(const fv::message& m) {
  std::string s = fv::message_name(m);
  std::visit(
      [&](const auto& x) {
        if constexpr (
            requires { x.tree; } && requires { x.depth; })
          s += " (tree " + std::to_string(x.tree) + ", depth " +
               std::to_string(x.depth) + ")";
        else if constexpr (requires { x.step; })
          s += " (step " + to_text(x.step) + ")";
      },
      m);
  return s;
}

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

void abort(client_actor* self, caf::error err) {
  self->quit(std::move(err));
}

void abort(client_actor* self, errc code, std::string message) {
  abort(self, session_error(code, std::move(message)));
}

void arm_ticks(client_actor* self) {
  auto& st = self->state;
  if (st.ticking)
    return;
  st.ticking = true;
  auto period =
      std::clamp<std::chrono::milliseconds>(st.timeout / 8, 10ms, 1000ms);
  self->delayed_send(self, period, messages::tick_atom::value, st.tick_epoch);
}

/// Sends the role's messages to its peers, counting their bytes.
void route(client_actor* self, fv::outbox out) {
  auto& st = self->state;
  for (auto& e : out) {
    if (e.to < 0 || static_cast<std::size_t>(e.to) >= st.peers.size() ||
        e.to == st.self()) {
      abort(self, errc::protocol_error,
            st.me() + ": the protocol role addressed client " +
                std::to_string(e.to) + ", which is not a peer");
      return;
    }
    st.bytes[fv::message_name(e.msg)].sent += fv::payload_bytes(e.msg);
    st.step = step_of(e.msg);
    auto& dest = st.peers[static_cast<std::size_t>(e.to)];
    std::visit([&](auto& x) { self->send(dest, std::move(x)); }, e.msg);
  }
}

fvl::trained make_trained(const client_state& st) {
  fvl::trained t;
  const auto& r = *st.role;
  t.model = r.model();
  t.own_splits = r.own_splits().size();
  t.seconds = seconds_since(st.started);
  auto p = r.privacy();
  t.protected_sums = p.protected_sums;
  t.sigma = p.sigma;
  t.release_epsilon = p.release_epsilon;
  t.release_delta = p.release_delta;
  t.query_epsilon = p.query_epsilon;
  t.query_delta = p.query_delta;
  t.release_rho = p.release_rho;
  t.queries_caused = p.queries_caused;
  t.queries_answered = p.queries_answered;
  t.queries_total = p.queries_total;
  t.record_queries = p.record_queries;
  t.record_query_bound = p.record_query_bound;
  t.basic_epsilon = p.basic_epsilon;
  t.basic_delta = p.basic_delta;
  t.zcdp_rho = p.zcdp_rho;
  t.zcdp_epsilon = p.zcdp_epsilon;
  t.zcdp_delta = p.zcdp_delta;
  t.warning = p.warning.empty() ? r.warning() : p.warning;
  for (const auto& [key, s] : r.own_splits()) {
    t.split_trees.push_back(key.first);
    t.split_nodes.push_back(key.second);
    t.split_features.push_back(s.feature);
    t.split_thresholds.push_back(s.threshold);
  }
  return t;
}

/// Reports finished work to the coordinator.
void after_step(client_actor* self) {
  auto& st = self->state;
  if (st.training && st.role->training_done()) {
    st.training = false;
    self->send(st.coordinator, make_trained(st));
  }
  if (st.predicting && st.role->predict_done()) {
    st.predicting = false;
    self->send(st.coordinator, fvl::predicted{st.role->predicted_margins(),
                                              seconds_since(st.started)});
  }
}

template <class T>
void on_wire(client_actor* self, T& x) {
  auto& st = self->state;
  fv::message m{std::move(x)};
  auto sender = self->current_sender();
  auto from =
      sender ? st.peer_index(caf::actor_cast<caf::actor_addr>(sender)) : -1;
  if (from < 0) {
    abort(self, errc::unknown_sender,
          st.me() + " got a " + fv::message_name(m) +
              " message from an actor that is not a peer of this session");
    return;
  }
  const auto& peer = st.names[static_cast<std::size_t>(from)];
  st.bytes[fv::message_name(m)].received += fv::payload_bytes(m);
  st.last_heard = clock_type::now();
  if (auto* f = std::get_if<fv::failure>(&m)) {
    abort(self, errc::protocol_error,
          peer + " failed at step " + f->step + ": " + f->reason);
    return;
  }
  if (!st.role) {
    abort(self, errc::bad_request,
          st.me() + " got a " + fv::message_name(m) + " from " + peer +
              " before its role was set up");
    return;
  }
  auto what = step_of(m);
  auto out = st.role->on_message(from, m);
  if (!out) {
    const auto& e = out.error();
    route(self, {{from, fv::failure{e.step, e.reason}}});
    abort(self, errc::protocol_error,
          st.me() + " refused a " + what + " from " + peer + " at step " +
              e.step + ": " + e.reason);
    return;
  }
  st.step = what;
  route(self, std::move(*out));
  after_step(self);
}

void on_tick(client_actor* self, std::uint64_t epoch) {
  auto& st = self->state;
  if (epoch != st.tick_epoch)
    return;
  st.ticking = false;
  if (!st.busy())
    return;
  if (clock_type::now() - st.last_heard > st.timeout) {
    abort(self, errc::timeout,
          st.me() + " heard from no peer within " + seconds_text(st.timeout) +
              " (" + (st.training ? "train" : "predict") + ", last step " +
              st.step + ")");
    return;
  }
  arm_ticks(self);
}

caf::result<caf::ok_atom> on_roster(client_actor* self, fvl::roster& r,
                                    std::vector<caf::actor>& peers) {
  auto& st = self->state;
  auto n = peers.size();
  if (st.role)
    return session_error(errc::bad_request, st.me() + ": got a second roster");
  if (n != r.names.size() || r.self != st.self() || r.keys.size() != 32 * n ||
      static_cast<std::int32_t>(n) != st.setup->parties ||
      peers[static_cast<std::size_t>(r.self)].address() != self->address())
    return session_error(errc::bad_request, st.me() + ": malformed roster");
  if (r.timeout_ms <= 0)
    return session_error(errc::bad_request,
                         st.me() + ": the timeout must be positive");
  st.names = std::move(r.names);
  st.timeout = std::chrono::milliseconds(r.timeout_ms);
  for (auto& p : peers) {
    st.peer_addrs.push_back(p.address());
    st.peers.push_back(p);
  }
  st.coordinator = caf::actor_cast<caf::actor>(self->current_sender());
  if (st.coordinator)
    self->monitor(st.coordinator);
  for (std::size_t q = 0; q < n; ++q)
    if (static_cast<std::int32_t>(q) != st.self())
      self->monitor(st.peers[q]);
  auto& s = *st.setup;
  std::optional<fv::credentials> creds;
  if (s.params.protocol == fv::mode::feverless ||
      s.params.protocol == fv::mode::ahe) {
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
  fv::random_engine rng;
  if (s.test_seed)
    rng = protocols::crypto::seeded_random(
        *s.test_seed * 1000 + static_cast<std::uint64_t>(s.index) + 1);
  else
    rng = [g = std::make_shared<protocols::crypto::system_random>()] {
      return (*g)();
    };
  try {
    st.role = std::make_unique<fv::client>(
        s.params, s.index, s.parties, std::move(s.spec.features),
        std::move(s.spec.labels), std::move(creds), std::move(rng));
    if (s.spec.eval.rows() > 0)
      st.role->set_predict_data(s.spec.eval);
  } catch (const std::exception& e) {
    return session_error(errc::bad_input, st.me() + ": " + e.what());
  }
  return caf::ok_atom::value;
}

void on_train(client_actor* self) {
  auto& st = self->state;
  if (!st.role || st.training || st.role->training_done()) {
    abort(self, errc::bad_request,
          st.me() + ": train before the roster, or a second time");
    return;
  }
  st.started = clock_type::now();
  st.last_heard = st.started;
  st.training = true;
  auto out = st.role->start();
  if (!out) {
    abort(self, errc::protocol_error,
          st.me() + " could not start at step " + out.error().step + ": " +
              out.error().reason);
    return;
  }
  route(self, std::move(*out));
  after_step(self);
  if (st.training)
    arm_ticks(self);
}

void on_predict(client_actor* self) {
  auto& st = self->state;
  if (!st.role || !st.role->training_done() || st.predicting) {
    abort(self, errc::bad_request, st.me() + ": predict before training ended");
    return;
  }
  st.started = clock_type::now();
  st.last_heard = st.started;
  st.predicting = true;
  fv::outbox out;
  try {
    out = st.role->start_predict(st.setup->spec.eval);
  } catch (const std::exception& e) {
    abort(self, errc::bad_input, st.me() + ": " + e.what());
    return;
  }
  route(self, std::move(out));
  after_step(self);
  if (st.predicting)
    arm_ticks(self);
}

session::byte_stats on_stats(client_actor* self) {
  auto& st = self->state;
  session::byte_stats s;
  s.party = st.me();
  for (const auto& [type, n] : st.bytes) {
    s.types.push_back(type);
    s.sent.push_back(n.sent);
    s.received.push_back(n.received);
  }
  return s;
}

caf::behavior client_impl(client_actor* self,
                          std::shared_ptr<client_setup> setup) {
  auto& st = self->state;
  st.setup = std::move(setup);
  if (st.setup->test_seed) {
    protocols::crypto::key32 k;
    for (int i = 0; i < 8; ++i)
      k.data()[i] = static_cast<std::uint8_t>(*st.setup->test_seed >> (8 * i));
    k.data()[8] = static_cast<std::uint8_t>(st.setup->index);
    k.data()[9] = 0xFE;
    st.identity.emplace(k);
  } else {
    st.identity.emplace(); // fresh key pair from the CSPRNG
  }
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& st = self->state;
    if (st.coordinator && dm.source == st.coordinator.address()) {
      abort(self, errc::party_down,
            st.me() + ": the coordinator ended (" + describe(dm.reason) + ")");
      return;
    }
    auto q = st.peer_index(dm.source);
    if (q < 0)
      return;
    if (!dm.reason) // a peer that finished normally (session over)
      return;
    auto reason = describe(dm.reason);
    if (dm.reason.category() == caf::atom("veil"))
      abort(self, session_error(code_of(dm.reason), reason));
    else
      abort(self, errc::party_down,
            st.names[static_cast<std::size_t>(q)] + " ended while " + st.me() +
                " was at step " + st.step + " (" + reason + ")");
  });
  self->set_default_handler([=](caf::scheduled_actor*, caf::message_view& x)
                                -> caf::result<caf::message> {
    auto& st = self->state;
    auto err = session_error(errc::protocol_error,
                             st.me() + " got an unexpected message " +
                                 unexpected_text(x.copy_content_to_message()) +
                                 " at step " + st.step);
    abort(self, err);
    return err;
  });
  return {
      [=](messages::keys_atom) {
        return fvl::identity_key{self->state.identity
                                     ? self->state.identity->public_key_bytes()
                                     : protocols::crypto::public_key{}};
      },
      [=](messages::peers_atom, fvl::roster& r,
          std::vector<caf::actor>& peers) { return on_roster(self, r, peers); },
      [=](messages::train_atom) { on_train(self); },
      [=](messages::predict_atom) { on_predict(self); },
      [=](messages::stats_atom) { return on_stats(self); },
      [=](messages::tick_atom, std::uint64_t epoch) { on_tick(self, epoch); },
      [=](fv::key_announce& x) { on_wire(self, x); },
      [=](fv::query_batch& x) { on_wire(self, x); },
      [=](fv::lead_tickets& x) { on_wire(self, x); },
      [=](fv::threshold_tickets& x) { on_wire(self, x); },
      [=](fv::noise_offers& x) { on_wire(self, x); },
      [=](fv::noise_notice& x) { on_wire(self, x); },
      [=](fv::masked_sums& x) { on_wire(self, x); },
      [=](fv::plain_sums& x) { on_wire(self, x); },
      [=](fv::encrypted_sums& x) { on_wire(self, x); },
      [=](fv::best_gains& x) { on_wire(self, x); },
      [=](fv::node_decisions& x) { on_wire(self, x); },
      [=](fv::predict_query& x) { on_wire(self, x); },
      [=](fv::predict_answer& x) { on_wire(self, x); },
      [=](fv::failure& x) { on_wire(self, x); },
  };
}

feverless_outcome failed(errc code, std::string message) {
  return actors::failed<feverless_outcome>(code, std::move(message));
}

} // namespace

feverless_outcome run_feverless_session(feverless_config cfg,
                                        const local_options& opts) {
  auto n = cfg.clients.size();
  try {
    if (n < 2)
      throw input_error("FEVERLESS needs at least 2 clients (labels spread "
                        "over them), got " +
                        std::to_string(n));
    if (n > 256)
      throw input_error("FEVERLESS supports at most 256 clients, got " +
                        std::to_string(n));
    if (cfg.timeout.count() <= 0)
      throw input_error("the timeout must be positive");
    cfg.params.validate();
  } catch (const input_error& e) {
    return failed(errc::bad_input, e.what());
  }
  local_config sys_cfg(opts);
  caf::actor_system sys{sys_cfg};
  std::vector<caf::actor> clients;
  std::vector<std::string> names;
  bool predict = cfg.predict && cfg.clients[0].eval.rows() > 0;
  for (std::size_t c = 0; c < n; ++c) {
    auto s = std::make_shared<client_setup>();
    names.push_back(cfg.clients[c].name);
    s->spec = std::move(cfg.clients[c]);
    s->params = cfg.params;
    s->index = static_cast<std::int32_t>(c);
    s->parties = static_cast<std::int32_t>(n);
    s->test_seed = cfg.test_seed;
    clients.push_back(sys.spawn(client_impl, std::move(s)));
  }
  caf::scoped_actor self{sys};
  for (auto& c : clients)
    self->monitor(c);
  auto finish = [&](feverless_outcome out) {
    send_exits(self, clients);
    return out;
  };
  auto from_error = [](const caf::error& e, const std::string& who) {
    return actors::from_error<feverless_outcome>(e, who);
  };

  // 1. Identity keys, gathered and handed out with the roster.
  std::vector<std::uint8_t> keys;
  std::optional<feverless_outcome> error;
  for (std::size_t c = 0; c < n && !error; ++c)
    self->request(clients[c], cfg.timeout, messages::keys_atom::value)
        .receive(
            [&](fvl::identity_key& k) {
              keys.insert(keys.end(), k.key.begin(), k.key.end());
            },
            [&](caf::error& e) { error = from_error(e, names[c]); });
  for (std::size_t c = 0; c < n && !error; ++c) {
    fvl::roster r{static_cast<std::int32_t>(c), names, cfg.timeout.count(),
                  keys};
    self->request(clients[c], cfg.timeout, messages::peers_atom::value,
                  std::move(r), clients)
        .receive([](caf::ok_atom) {},
                 [&](caf::error& e) { error = from_error(e, names[c]); });
  }
  if (error)
    return finish(std::move(*error));

  // 2. Training: every client reports its model when done; a client that
  // fails ends itself and its peers (they monitor each other).
  feverless_result result;
  result.clients.resize(n);
  std::vector<std::optional<fvl::trained>> done(n);
  auto t0 = clock_type::now();
  for (auto& c : clients)
    self->send(c, messages::train_atom::value);
  std::size_t got = 0;
  auto wait_error = [&](caf::down_msg& dm) {
    error = from_down<feverless_outcome>(dm, clients, names, "a client");
  };
  while (got < n && !error)
    self->receive(
        [&](fvl::trained& t) {
          auto q = index_of(clients, self->current_sender());
          if (q >= 0 && !done[static_cast<std::size_t>(q)]) {
            done[static_cast<std::size_t>(q)] = std::move(t);
            ++got;
          }
        },
        [&](caf::down_msg& dm) { wait_error(dm); });
  if (error)
    return finish(std::move(*error));
  result.train_seconds = seconds_since(t0);
  const auto& first = *done[0];
  result.model = first.model;
  auto& pr = result.privacy;
  pr.protected_sums = first.protected_sums;
  pr.sigma = first.sigma;
  pr.release_epsilon = first.release_epsilon;
  pr.release_delta = first.release_delta;
  pr.query_epsilon = first.query_epsilon;
  pr.query_delta = first.query_delta;
  pr.release_rho = first.release_rho;
  pr.queries_caused = first.queries_caused;
  pr.queries_answered = first.queries_answered;
  pr.queries_total = first.queries_total;
  pr.record_queries = first.record_queries;
  pr.record_query_bound = first.record_query_bound;
  pr.basic_epsilon = first.basic_epsilon;
  pr.basic_delta = first.basic_delta;
  pr.zcdp_rho = first.zcdp_rho;
  pr.zcdp_epsilon = first.zcdp_epsilon;
  pr.zcdp_delta = first.zcdp_delta;
  pr.warning = first.warning;
  for (std::size_t c = 0; c < n; ++c) {
    auto& t = *done[c];
    auto& cr = result.clients[c];
    cr.name = names[c];
    for (std::size_t k = 0; k < t.split_trees.size(); ++k)
      cr.splits[{t.split_trees[k], t.split_nodes[k]}] =
          fv::owned_split{t.split_features[k], 0, t.split_thresholds[k]};
  }

  // 3. Federated prediction, client 0 asking.
  if (predict) {
    auto t1 = clock_type::now();
    self->send(clients[0], messages::predict_atom::value);
    bool have = false;
    while (!have && !error)
      self->receive(
          [&](fvl::predicted& p) {
            result.margins = std::move(p.margins);
            have = true;
          },
          [&](caf::down_msg& dm) { wait_error(dm); });
    if (error)
      return finish(std::move(*error));
    result.predict_seconds = seconds_since(t1);
  }

  // 4. Byte counts.
  error = gather_bytes<feverless_outcome>(
      self, clients, names, cfg.timeout,
      [&](std::size_t c, session::byte_stats& b) {
        result.clients[c].bytes = b;
      });
  if (error)
    return finish(std::move(*error));
  feverless_outcome out;
  out.result = std::move(result);
  return finish(std::move(out));
}

} // namespace veil::actors
