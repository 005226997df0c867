#include "actors/opboost_session.hpp"

#include <algorithm>
#include <limits>
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
#include "messages/opboost.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/crypto/random.hpp"
#include "protocols/opboost/active_party.hpp"
#include "protocols/opboost/passive_party.hpp"

namespace veil::actors {

namespace {

namespace op = protocols::opboost;
namespace session = protocols::session;
namespace opl = messages::opl;
using session::errc;
using clock_type = std::chrono::steady_clock;
using namespace std::chrono_literals;

struct byte_count {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};

/// Everything a party actor is spawned with.
struct party_setup {
  opboost_party_spec spec;
  op::params params;
  std::int32_t index = 0;
  std::int32_t parties = 0;
  std::optional<std::uint64_t> test_seed;
};

struct party_state {
  static inline const char* name = "veil.opboost_party";

  std::shared_ptr<party_setup> setup;
  std::unique_ptr<op::active_party> active;   // index 0
  std::unique_ptr<op::passive_party> passive; // index > 0
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
  bool has_role() const { return active || passive; }
};

using party_actor = caf::stateful_actor<party_state>;

/// crypto::system_random (neither copyable nor movable) as a movable
/// std-style engine for op::random_engine.
struct system_engine {
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() {
    return std::numeric_limits<result_type>::max();
  }
  std::unique_ptr<protocols::crypto::system_random> g =
      std::make_unique<protocols::crypto::system_random>();
  result_type operator()() { return (*g)(); }
};

double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

void abort(party_actor* self, caf::error err) {
  self->quit(std::move(err));
}

void abort(party_actor* self, errc code, std::string message) {
  abort(self, session_error(code, std::move(message)));
}

void arm_ticks(party_actor* self) {
  auto& st = self->state;
  if (st.ticking)
    return;
  st.ticking = true;
  auto period =
      std::clamp<std::chrono::milliseconds>(st.timeout / 8, 10ms, 1000ms);
  self->delayed_send(self, period, messages::tick_atom::value, st.tick_epoch);
}

/// Sends the role's messages to its peers, counting their bytes.
void route(party_actor* self, op::outbox out) {
  auto& st = self->state;
  for (auto& e : out) {
    if (e.to < 0 || static_cast<std::size_t>(e.to) >= st.peers.size() ||
        e.to == st.self()) {
      abort(self, errc::protocol_error,
            st.me() + ": the protocol role addressed party " +
                std::to_string(e.to) + ", which is not a peer");
      return;
    }
    st.bytes[op::message_name(e.msg)].sent += op::payload_bytes(e.msg);
    st.step = op::message_name(e.msg);
    auto& dest = st.peers[static_cast<std::size_t>(e.to)];
    std::visit([&](auto& x) { self->send(dest, std::move(x)); }, e.msg);
  }
}

opl::trained make_trained(const party_state& st) {
  const auto& a = *st.active;
  opl::trained t;
  t.model = a.model();
  t.splits = a.splits().size();
  t.seconds = seconds_since(st.started);
  t.report = a.privacy_report();
  auto spent = a.spent();
  for (const auto& e : spent.entries()) {
    t.what.push_back(e.what);
    t.mechanism.push_back(e.cost.mechanism);
    t.kinds.push_back(static_cast<std::uint8_t>(e.cost.kind));
    t.epsilon.push_back(e.cost.epsilon);
    t.epsilon_prt.push_back(e.cost.epsilon_prt);
    t.epsilon_ner.push_back(e.cost.epsilon_ner);
    t.theta.push_back(e.cost.theta);
  }
  return t;
}

/// Reports Party A's finished work to the coordinator. Party B is done when
/// it answered the split request; it stays up for prediction requests.
void after_step(party_actor* self) {
  auto& st = self->state;
  if (!st.active)
    return;
  if (st.training && st.active->training_done()) {
    st.training = false;
    self->send(st.coordinator, make_trained(st));
  }
  if (st.predicting && st.active->predict_done()) {
    st.predicting = false;
    self->send(st.coordinator, opl::predicted{st.active->predicted_margins(),
                                              seconds_since(st.started)});
  }
}

template <class T>
void on_wire(party_actor* self, T& x) {
  auto& st = self->state;
  op::message m{std::move(x)};
  auto sender = self->current_sender();
  auto from =
      sender ? st.peer_index(caf::actor_cast<caf::actor_addr>(sender)) : -1;
  if (from < 0) {
    abort(self, errc::unknown_sender,
          st.me() + " got a " + op::message_name(m) +
              " message from an actor that is not a peer of this session");
    return;
  }
  const auto& peer = st.names[static_cast<std::size_t>(from)];
  st.bytes[op::message_name(m)].received += op::payload_bytes(m);
  st.last_heard = clock_type::now();
  if (auto* f = std::get_if<op::failure>(&m)) {
    abort(self, errc::protocol_error,
          peer + " failed at step " + f->step + ": " + f->reason);
    return;
  }
  if (!st.has_role()) {
    abort(self, errc::bad_request,
          st.me() + " got a " + op::message_name(m) + " from " + peer +
              " before its role was set up");
    return;
  }
  std::string what = op::message_name(m);
  auto out = st.active ? st.active->on_message(from, m)
                       : st.passive->on_message(from, m);
  if (!out) {
    const auto& e = out.error();
    route(self, {{from, op::failure{e.step, e.reason}}});
    abort(self, errc::protocol_error,
          st.me() + " refused a " + what + " from " + peer + " at step " +
              e.step + ": " + e.reason);
    return;
  }
  st.step = what;
  route(self, std::move(*out));
  after_step(self);
}

void on_tick(party_actor* self, std::uint64_t epoch) {
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

caf::result<caf::ok_atom> on_roster(party_actor* self, opl::roster& r,
                                    std::vector<caf::actor>& peers) {
  auto& st = self->state;
  auto n = peers.size();
  if (st.has_role())
    return session_error(errc::bad_request, st.me() + ": got a second roster");
  if (n != r.names.size() || r.self != st.self() ||
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
  try {
    if (s.index == 0) {
      std::vector<op::party_id> ids;
      for (std::int32_t q = 1; q < s.parties; ++q)
        ids.push_back(q);
      st.active = std::make_unique<op::active_party>(
          s.params, std::move(s.spec.features), std::move(ids));
    } else {
      auto rng =
          s.test_seed
              ? op::random_engine(protocols::crypto::seeded_random(
                    *s.test_seed * 1000 + static_cast<std::uint64_t>(s.index)))
              : op::random_engine(system_engine{});
      st.passive = std::make_unique<op::passive_party>(
          s.index, s.params, std::move(s.spec.features), std::move(s.spec.maps),
          std::move(rng));
      if (s.spec.eval.rows() > 0)
        st.passive->set_predict_data(s.spec.eval);
    }
  } catch (const std::exception& e) {
    return session_error(errc::bad_input, st.me() + ": " + e.what());
  }
  return caf::ok_atom::value;
}

void on_train(party_actor* self) {
  auto& st = self->state;
  if (!st.has_role() || st.training ||
      (st.active && st.active->training_done())) {
    abort(self, errc::bad_request,
          st.me() + ": train before the roster, or a second time");
    return;
  }
  st.started = clock_type::now();
  st.last_heard = st.started;
  if (st.active) {
    // Party A waits for every Party B's schema and ranks.
    st.training = true;
    after_step(self);
    if (st.training)
      arm_ticks(self);
    return;
  }
  op::outbox out;
  try {
    out = st.passive->start();
  } catch (const std::exception& e) {
    abort(self, errc::bad_input, st.me() + ": " + e.what());
    return;
  }
  route(self, std::move(out));
}

void on_predict(party_actor* self) {
  auto& st = self->state;
  if (!st.active || !st.active->training_done() || st.predicting) {
    abort(self, errc::bad_request,
          st.me() + ": predict at a Party B or before training ended");
    return;
  }
  st.started = clock_type::now();
  st.last_heard = st.started;
  st.predicting = true;
  op::outbox out;
  try {
    out = st.active->start_private_predict(st.setup->spec.eval);
  } catch (const std::exception& e) {
    abort(self, errc::bad_input, st.me() + ": " + e.what());
    return;
  }
  route(self, std::move(out));
  after_step(self);
  if (st.predicting)
    arm_ticks(self);
}

session::byte_stats on_stats(party_actor* self) {
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

caf::behavior party_impl(party_actor* self,
                         std::shared_ptr<party_setup> setup) {
  self->state.setup = std::move(setup);
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
      [=](messages::peers_atom, opl::roster& r,
          std::vector<caf::actor>& peers) { return on_roster(self, r, peers); },
      [=](messages::train_atom) { on_train(self); },
      [=](messages::predict_atom) { on_predict(self); },
      [=](messages::stats_atom) { return on_stats(self); },
      [=](messages::tick_atom, std::uint64_t epoch) { on_tick(self, epoch); },
      [=](op::schema& x) { on_wire(self, x); },
      [=](op::ranks& x) { on_wire(self, x); },
      [=](op::split_request& x) { on_wire(self, x); },
      [=](op::split_values& x) { on_wire(self, x); },
      [=](op::predict_request& x) { on_wire(self, x); },
      [=](op::predict_values& x) { on_wire(self, x); },
      [=](op::failure& x) { on_wire(self, x); },
  };
}

opboost_outcome failed(errc code, std::string message) {
  return actors::failed<opboost_outcome>(code, std::move(message));
}

} // namespace

opboost_outcome run_opboost_session(opboost_config cfg,
                                    const local_options& opts) {
  auto n = cfg.parties.size();
  try {
    if (n < 2)
      throw input_error("OpBoost needs at least 2 parties (Party A with the "
                        "labels and at least one Party B), got " +
                        std::to_string(n));
    if (n > 256)
      throw input_error("OpBoost supports at most 256 parties, got " +
                        std::to_string(n));
    if (cfg.timeout.count() <= 0)
      throw input_error("the timeout must be positive");
    cfg.params.validate();
  } catch (const input_error& e) {
    return failed(errc::bad_input, e.what());
  }
  local_config sys_cfg(opts);
  caf::actor_system sys{sys_cfg};
  std::vector<caf::actor> parties;
  std::vector<std::string> names;
  bool predict = cfg.predict && cfg.parties[0].eval.rows() > 0;
  for (std::size_t c = 0; c < n; ++c) {
    auto s = std::make_shared<party_setup>();
    names.push_back(cfg.parties[c].name);
    s->spec = std::move(cfg.parties[c]);
    s->params = cfg.params;
    s->index = static_cast<std::int32_t>(c);
    s->parties = static_cast<std::int32_t>(n);
    s->test_seed = cfg.test_seed;
    parties.push_back(sys.spawn(party_impl, std::move(s)));
  }
  caf::scoped_actor self{sys};
  for (auto& c : parties)
    self->monitor(c);
  auto finish = [&](opboost_outcome out) {
    send_exits(self, parties);
    return out;
  };
  auto from_error = [](const caf::error& e, const std::string& who) {
    return actors::from_error<opboost_outcome>(e, who);
  };

  // 1. The roster: every party learns its peers and sets up its role.
  std::optional<opboost_outcome> error;
  for (std::size_t c = 0; c < n && !error; ++c) {
    opl::roster r{static_cast<std::int32_t>(c), names, cfg.timeout.count()};
    self->request(parties[c], cfg.timeout, messages::peers_atom::value,
                  std::move(r), parties)
        .receive([](caf::ok_atom) {},
                 [&](caf::error& e) { error = from_error(e, names[c]); });
  }
  if (error)
    return finish(std::move(*error));

  // 2. Training: Party B users send M0 and M1, Party A trains, asks for the
  // split values and reports its model. A party that fails ends itself and
  // its peers (they monitor each other).
  auto wait_error = [&](caf::down_msg& dm) {
    error = from_down<opboost_outcome>(dm, parties, names, "a party");
  };
  opboost_result result;
  auto t0 = clock_type::now();
  for (auto& c : parties)
    self->send(c, messages::train_atom::value);
  std::optional<opl::trained> done;
  while (!done && !error)
    self->receive(
        [&](opl::trained& t) {
          if (index_of(parties, self->current_sender()) == 0)
            done = std::move(t);
        },
        [&](caf::down_msg& dm) { wait_error(dm); });
  if (error)
    return finish(std::move(*error));
  result.train_seconds = seconds_since(t0);
  result.model = std::move(done->model);
  result.splits = done->splits;
  result.privacy_report = std::move(done->report);
  for (std::size_t k = 0; k < done->what.size(); ++k) {
    protocols::dp::privacy_cost cost;
    cost.kind = static_cast<protocols::dp::guarantee>(done->kinds.at(k));
    cost.epsilon = done->epsilon.at(k);
    cost.epsilon_prt = done->epsilon_prt.at(k);
    cost.epsilon_ner = done->epsilon_ner.at(k);
    cost.theta = done->theta.at(k);
    cost.mechanism = done->mechanism.at(k);
    result.spent.add(done->what[k], std::move(cost));
  }

  // 3. Private prediction, Party A asking every Party B.
  if (predict) {
    auto t1 = clock_type::now();
    self->send(parties[0], messages::predict_atom::value);
    bool have = false;
    while (!have && !error)
      self->receive(
          [&](opl::predicted& p) {
            result.margins = std::move(p.margins);
            have = true;
          },
          [&](caf::down_msg& dm) { wait_error(dm); });
    if (error)
      return finish(std::move(*error));
    result.predict_seconds = seconds_since(t1);
  }

  // 4. Byte counts.
  result.parties.resize(n);
  for (std::size_t c = 0; c < n; ++c)
    result.parties[c].name = names[c];
  error =
      gather_bytes<opboost_outcome>(self, parties, names, cfg.timeout,
                                    [&](std::size_t c, session::byte_stats& b) {
                                      result.parties[c].bytes = b;
                                    });
  if (error)
    return finish(std::move(*error));
  opboost_outcome out;
  out.result = std::move(result);
  return finish(std::move(out));
}

} // namespace veil::actors
