#include "actors/feverless_client.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <tuple>
#include <variant>

#include <caf/actor_system.hpp>
#include <caf/atom.hpp>
#include <caf/event_based_actor.hpp>
#include <caf/exit_reason.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/alignment.hpp"
#include "actors/errors.hpp"
#include "actors/local_system.hpp"
#include "actors/support.hpp"
#include "learners/data/csv_reader.hpp"
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
using namespace std::chrono_literals;

/// A client's data, loaded from its files: labels in the datasets' label
/// vectors, NaN where the cell was empty (another client's row).
struct loaded_data {
  learners::dataset train;
  learners::dataset test;
  bool train_loaded = false;
  bool test_loaded = false;
};

struct client_state {
  static inline const char* name = "veil.feverless_client";

  std::string me;
  /// Data given at spawn (then `loaded` stays empty).
  std::optional<feverless_client_spec> given;
  loaded_data loaded;
  std::optional<std::uint64_t> test_seed;
  std::int32_t seed_index = 0;

  std::optional<protocols::crypto::identity> identity;
  std::unique_ptr<fv::client> role;
  learners::dataset eval; ///< this client's columns of the rows to predict
  std::int32_t index = -1;
  std::vector<std::string> names;
  std::vector<caf::actor> peers;
  std::vector<caf::actor_addr> peer_addrs;
  caf::actor coordinator;
  std::chrono::milliseconds timeout{60000};

  bool training = false;
  bool predicting = false;
  clock_type::time_point started;
  clock_type::time_point last_heard;
  /// Per peer: when it was last heard from (none: never) and what it sent.
  std::vector<std::optional<clock_type::time_point>> heard;
  std::vector<std::string> heard_what;
  std::string step = "session setup"; // the last message handled or sent
  std::uint64_t tick_epoch = 0;
  bool ticking = false;

  byte_counts bytes;

  std::int32_t peer_index(const caf::actor_addr& addr) const {
    return peer_index_of(peer_addrs, addr, index);
  }
  bool busy() const { return training || predicting; }
};

using client_actor = caf::stateful_actor<client_state>;

/// "masked (tree 3, depth 2)".
std::string step_of(const fv::message& m) {
  return step_text(fv::message_name(m), m);
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
  self->delayed_send(self, tick_period(st.timeout), messages::tick_atom::value,
                     st.tick_epoch);
}

/// Sends the role's messages to its peers, counting their bytes.
void route(client_actor* self, fv::outbox out) {
  auto& st = self->state;
  for (auto& e : out) {
    if (e.to < 0 || static_cast<std::size_t>(e.to) >= st.peers.size() ||
        e.to == st.index) {
      abort(self, errc::protocol_error,
            st.me + ": the protocol role addressed client " +
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
          st.me + " got a " + fv::message_name(m) +
              " message from an actor that is not a peer of this session");
    return;
  }
  auto q = static_cast<std::size_t>(from);
  const auto& peer = st.names[q];
  auto what = step_of(m);
  st.bytes[fv::message_name(m)].received += fv::payload_bytes(m);
  st.last_heard = clock_type::now();
  st.heard[q] = st.last_heard;
  st.heard_what[q] = what;
  if (auto* f = std::get_if<fv::failure>(&m)) {
    abort(self, errc::protocol_error,
          peer + " failed at step " + f->step + ": " + f->reason);
    return;
  }
  if (!st.role) {
    abort(self, errc::bad_request,
          st.me + " got a " + fv::message_name(m) + " from " + peer +
              " before its role was set up");
    return;
  }
  auto out = st.role->on_message(from, m);
  if (!out) {
    const auto& e = out.error();
    route(self, {{from, fv::failure{e.step, e.reason}}});
    abort(self, errc::protocol_error,
          st.me + " refused a " + what + " from " + peer + " at step " +
              e.step + ": " + e.reason);
    return;
  }
  st.step = what;
  route(self, std::move(*out));
  after_step(self);
}

/// The peers a stalled client waits for: those never heard from, else the
/// one heard from least recently.
std::string silent_peers(const client_state& st) {
  std::string never;
  std::optional<std::size_t> oldest;
  for (std::size_t q = 0; q < st.heard.size(); ++q) {
    if (static_cast<std::int32_t>(q) == st.index)
      continue;
    if (!st.heard[q])
      never += (never.empty() ? "" : ", ") + st.names[q];
    else if (!oldest || *st.heard[q] < *st.heard[*oldest])
      oldest = q;
  }
  if (!never.empty())
    return "nothing ever came from " + never;
  if (!oldest)
    return "no peers";
  return "the longest silent is " + st.names[*oldest] + " (for " +
         seconds_text(std::chrono::duration_cast<std::chrono::milliseconds>(
             clock_type::now() - *st.heard[*oldest])) +
         ", since its " + st.heard_what[*oldest] + ")";
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
          st.me + " heard from no peer within " + seconds_text(st.timeout) +
              " (" + (st.training ? "train" : "predict") + ", last step " +
              st.step + "): " + silent_peers(st));
    return;
  }
  arm_ticks(self);
}

/// Reads a client's file: the features, and the label column (if any) as
/// labels with NaN for an empty cell. Throws input_error.
learners::dataset read_client_data(const session::data_spec& spec) {
  learners::read_options o;
  o.id = spec.id_column;
  o.columns = spec.feature_columns;
  const auto& label = spec.label_column;
  // The reader refuses an empty label cell, which here marks another
  // client's row: read the label column as a feature (empty = missing).
  if (!label.empty() && !o.columns.empty())
    o.columns.push_back(label);
  auto d = learners::read_table(spec.path, o);
  if (label.empty()) {
    d.labels().clear(); // LibSVM rows always carry one: not this client's
    return d;
  }
  if (d.has_labels()) // LibSVM: the label is every row's first token
    return d;
  auto j = d.feature_index(label);
  if (j < 0)
    throw input_error(spec.path + ": the label column \"" + label +
                      "\" is not in the file");
  std::vector<std::size_t> rest;
  for (std::size_t k = 0; k < d.features(); ++k)
    if (static_cast<long>(k) != j)
      rest.push_back(k);
  auto col = d.column(static_cast<std::size_t>(j));
  std::vector<float> labels(col.begin(), col.end());
  auto ids = std::move(d.ids());
  d = d.select_columns(rest);
  d.labels() = std::move(labels);
  d.ids() = std::move(ids);
  return d;
}

/// Labels set on `d` (0 or 1 each; NaN = another client's row).
std::uint64_t count_labels(const learners::dataset& d, const std::string& path,
                           const std::string& column) {
  std::uint64_t n = 0;
  for (std::size_t i = 0; i < d.labels().size(); ++i) {
    float y = d.labels()[i];
    if (std::isnan(y))
      continue;
    if (y != 0.0f && y != 1.0f)
      throw input_error(path + ": data row " + std::to_string(i + 1) +
                        ": label column \"" + column +
                        "\" holds neither 0 nor 1; FEVERLESS labels are 0, "
                        "1, or empty (a row another party labels)");
    ++n;
  }
  return n;
}

caf::result<fvl::loaded> on_load(client_actor* self, session::load_request& r) {
  auto& st = self->state;
  auto& ld = st.loaded;
  if (st.given || st.role)
    return session_error(errc::bad_request,
                         st.me + ": load after the session started, or for a "
                                 "client given its data at spawn");
  learners::dataset d;
  fvl::loaded out;
  try {
    if (r.test && r.same_as_train) {
      if (!ld.train_loaded)
        return session_error(errc::bad_request,
                             st.me + ": test rows = training rows, but no "
                                     "training data is loaded");
      d = ld.train;
    } else {
      d = read_client_data(r.data);
    }
    out.labels = count_labels(d, r.data.path, r.data.label_column);
  } catch (const input_error& e) {
    return session_error(errc::bad_input, st.me + ": " + e.what());
  } catch (const std::exception& e) {
    return session_error(errc::bad_input, st.me + ": cannot read " +
                                              r.data.path + ": " + e.what());
  }
  out.data.rows = d.rows();
  out.data.feature_names = d.feature_names();
  out.data.has_labels = out.labels > 0;
  out.data.ids = std::move(d.ids()); // the coordinator aligns
  d.ids().clear();
  (r.test ? ld.test : ld.train) = std::move(d);
  (r.test ? ld.test_loaded : ld.train_loaded) = true;
  return out;
}

caf::result<std::uint64_t> on_align(client_actor* self,
                                    session::align_request& r) {
  auto& st = self->state;
  auto& ld = st.loaded;
  if (st.role || !(r.test ? ld.test_loaded : ld.train_loaded))
    return session_error(errc::bad_request,
                         st.me + ": align before load or after the roster");
  auto& d = r.test ? ld.test : ld.train;
  if (auto msg = apply_order(d, r.rows); !msg.empty())
    return session_error(errc::bad_request, st.me + ": " + msg);
  return static_cast<std::uint64_t>(d.rows());
}

/// The role's inputs from the loaded data: the features without labels,
/// the rows whose label cell is set.
feverless_client_spec spec_from_loaded(loaded_data& ld) {
  feverless_client_spec s;
  auto labels = std::move(ld.train.labels());
  ld.train.labels().clear();
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (!std::isnan(labels[i])) {
      s.labels.rows.push_back(static_cast<std::uint32_t>(i));
      s.labels.labels.push_back(labels[i]);
    }
  s.features = std::move(ld.train);
  if (ld.test_loaded) {
    s.eval = ld.test; // keeps its labels for labels_atom
    s.eval.labels().clear();
  }
  return s;
}

caf::result<caf::ok_atom> on_roster(client_actor* self, fvl::roster& r,
                                    std::vector<caf::actor>& peers) {
  auto& st = self->state;
  auto n = peers.size();
  if (st.role)
    return session_error(errc::bad_request, st.me + ": got a second roster");
  if (n != r.names.size() || r.self < 0 ||
      static_cast<std::size_t>(r.self) >= n || r.keys.size() != 32 * n ||
      peers[static_cast<std::size_t>(r.self)].address() != self->address())
    return session_error(errc::bad_request, st.me + ": malformed roster");
  if (st.test_seed && r.self != st.seed_index)
    return session_error(errc::bad_request,
                         st.me + ": the roster's index differs from the "
                                 "index of its test seed");
  if (r.timeout_ms <= 0)
    return session_error(errc::bad_request,
                         st.me + ": the timeout must be positive");
  if (!st.given && !st.loaded.train_loaded)
    return session_error(errc::bad_request,
                         st.me + ": roster before its data was loaded");
  try {
    r.params.validate();
  } catch (const input_error& e) {
    return session_error(errc::bad_input, st.me + ": " + e.what());
  }
  st.index = r.self;
  st.names = std::move(r.names);
  st.timeout = std::chrono::milliseconds(r.timeout_ms);
  for (auto& p : peers) {
    st.peer_addrs.push_back(p.address());
    st.peers.push_back(p);
  }
  st.heard.assign(n, std::nullopt);
  st.heard_what.assign(n, {});
  st.coordinator = caf::actor_cast<caf::actor>(self->current_sender());
  if (st.coordinator)
    self->monitor(st.coordinator);
  for (std::size_t q = 0; q < n; ++q)
    if (static_cast<std::int32_t>(q) != st.index)
      self->monitor(st.peers[q]);
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
  fv::random_engine rng;
  if (st.test_seed)
    rng = protocols::crypto::seeded_random(
        *st.test_seed * 1000 + static_cast<std::uint64_t>(st.index) + 1);
  else
    rng = [g = std::make_shared<protocols::crypto::system_random>()] {
      return (*g)();
    };
  auto spec = st.given ? std::move(*st.given) : spec_from_loaded(st.loaded);
  st.given.reset();
  try {
    st.role = std::make_unique<fv::client>(
        p, st.index, static_cast<std::int32_t>(n), std::move(spec.features),
        std::move(spec.labels), std::move(creds), std::move(rng));
    st.eval = std::move(spec.eval);
    if (st.eval.rows() > 0)
      st.role->set_predict_data(st.eval);
  } catch (const std::exception& e) {
    return session_error(errc::bad_input, st.me + ": " + e.what());
  }
  return caf::ok_atom::value;
}

void on_train(client_actor* self) {
  auto& st = self->state;
  if (!st.role || st.training || st.role->training_done()) {
    abort(self, errc::bad_request,
          st.me + ": train before the roster, or a second time");
    return;
  }
  st.started = clock_type::now();
  st.last_heard = st.started;
  st.training = true;
  auto out = st.role->start();
  if (!out) {
    abort(self, errc::protocol_error,
          st.me + " could not start at step " + out.error().step + ": " +
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
    abort(self, errc::bad_request, st.me + ": predict before training ended");
    return;
  }
  st.started = clock_type::now();
  st.last_heard = st.started;
  st.predicting = true;
  fv::outbox out;
  try {
    out = st.role->start_predict(st.eval);
  } catch (const std::exception& e) {
    abort(self, errc::bad_input, st.me + ": " + e.what());
    return;
  }
  route(self, std::move(out));
  after_step(self);
  if (st.predicting)
    arm_ticks(self);
}

fvl::eval_labels on_labels(client_actor* self) {
  const auto& ld = self->state.loaded;
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

caf::behavior client_impl(client_actor* self, std::string name,
                          std::optional<feverless_client_spec> given,
                          std::optional<std::uint64_t> test_seed,
                          std::int32_t seed_index) {
  auto& st = self->state;
  st.me = std::move(name);
  st.given = std::move(given);
  st.test_seed = test_seed;
  st.seed_index = seed_index;
  if (test_seed) {
    protocols::crypto::key32 k;
    for (int i = 0; i < 8; ++i)
      k.data()[i] = static_cast<std::uint8_t>(*test_seed >> (8 * i));
    k.data()[8] = static_cast<std::uint8_t>(seed_index);
    k.data()[9] = 0xFE;
    st.identity.emplace(k);
  } else {
    st.identity.emplace(); // fresh key pair from the CSPRNG
  }
  self->set_down_handler([=](caf::down_msg& dm) {
    auto& st = self->state;
    if (st.coordinator && dm.source == st.coordinator.address()) {
      abort(self, errc::party_down,
            st.me + ": the coordinator ended (" + describe(dm.reason) + ")");
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
            st.names[static_cast<std::size_t>(q)] + " ended while " + st.me +
                " was at step " + st.step + " (" + reason + ")");
  });
  self->set_default_handler([=](caf::scheduled_actor*, caf::message_view& x)
                                -> caf::result<caf::message> {
    auto& st = self->state;
    auto err = session_error(errc::protocol_error,
                             st.me + " got an unexpected message " +
                                 unexpected_text(x.copy_content_to_message()) +
                                 " at step " + st.step);
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
      [=](messages::keys_atom) {
        return fvl::identity_key{self->state.identity
                                     ? self->state.identity->public_key_bytes()
                                     : protocols::crypto::public_key{}};
      },
      [=](messages::peers_atom, fvl::roster& r,
          std::vector<caf::actor>& peers) { return on_roster(self, r, peers); },
      [=](messages::train_atom) { on_train(self); },
      [=](messages::predict_atom) { on_predict(self); },
      [=](messages::labels_atom) { return on_labels(self); },
      [=](messages::stats_atom) {
        return byte_stats_of(self->state.me, self->state.bytes);
      },
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

// -- the driver
// ----------------------------------------------------------------

/// A session in progress on the driver's side (a scoped actor).
struct driver {
  caf::scoped_actor& self;
  std::vector<caf::actor>& clients;
  const feverless_run& run;
  std::optional<feverless_outcome> error;

  std::size_t size() const { return clients.size(); }
  const std::string& name(std::size_t c) const { return run.names[c]; }

  void fail(errc code, std::string message) {
    if (!error)
      error = failed<feverless_outcome>(code, std::move(message));
  }

  void fail(const caf::error& e, std::size_t c) {
    if (error)
      return;
    if (e == caf::sec::request_timeout)
      fail(errc::timeout, name(c) + " did not answer within " +
                              seconds_text(run.timeout) + " at step " + step);
    else
      error =
          from_error<feverless_outcome>(e, name(c) + " (at step " + step + ")");
  }

  std::string step = "session setup";

  /// One request per client, in order; `on_reply(c, reply)` for each.
  template <class Reply, class Make, class OnReply>
  void ask_all(std::string what, Make make, OnReply on_reply) {
    step = std::move(what);
    for (std::size_t c = 0; c < size() && !error; ++c)
      std::apply(
          [&](auto&&... xs) {
            self->request(clients[c], run.timeout, xs...)
                .receive([&](Reply& r) { on_reply(c, r); },
                         [&](caf::error& e) { fail(e, c); });
          },
          make(c));
  }

  /// Waits for one message of type T from each client in `from` (the
  /// training and prediction results). A client's down message ends the
  /// wait: a client that aborted names itself and the step; for one that
  /// vanished (killed, its node gone) the others, which monitor it, name
  /// the step they were at, so their word is awaited up to the timeout.
  template <class T, class Store>
  void await_each(std::vector<std::size_t> from, Store store) {
    std::vector<bool> got(size(), false);
    std::size_t missing = from.size();
    std::optional<std::string> vanished;
    clock_type::time_point since;
    auto period = tick_period(run.timeout);
    while (missing > 0 && !error) {
      self->receive(
          [&](T& x) {
            auto q = index_of(clients, self->current_sender());
            if (q < 0 || got[static_cast<std::size_t>(q)] ||
                std::find(from.begin(), from.end(),
                          static_cast<std::size_t>(q)) == from.end())
              return;
            got[static_cast<std::size_t>(q)] = true;
            --missing;
            store(static_cast<std::size_t>(q), x);
          },
          [&](caf::down_msg& dm) {
            auto q = index_of(
                clients, caf::actor_cast<caf::strong_actor_ptr>(dm.source));
            if (q < 0)
              return;
            auto who = name(static_cast<std::size_t>(q));
            if (dm.reason.category() == caf::atom("veil")) {
              fail(code_of(dm.reason), describe(dm.reason));
            } else if (!vanished) {
              vanished = who + " ended at step " + step + " (" +
                         (dm.reason ? describe(dm.reason) : "no reason") + ")";
              since = clock_type::now();
            }
          },
          caf::after(period) >>
              [&] {
                if (vanished && clock_type::now() - since > run.timeout)
                  fail(errc::party_down, *vanished);
              });
    }
  }
};

/// Loads and aligns the clients' data; the summaries of the training data.
void load_data(driver& d, feverless_result& result) {
  const auto& specs = d.run.load;
  auto n = d.size();
  std::vector<session::data_summary> train(n), test(n);
  std::vector<std::uint64_t> labels(n), test_labels(n);
  bool have_test = !specs[0].test_path.empty();
  auto load = [&](bool is_test, std::vector<session::data_summary>& out,
                  std::vector<std::uint64_t>& counts) {
    d.ask_all<fvl::loaded>(
        is_test ? "load test data" : "load training data",
        [&](std::size_t c) {
          session::load_request r{is_test, false, specs[c].data};
          if (is_test)
            r.data.path = specs[c].test_path;
          return std::make_tuple(messages::load_atom::value, std::move(r));
        },
        [&](std::size_t c, fvl::loaded& l) {
          out[c] = std::move(l.data);
          counts[c] = l.labels;
        });
  };
  load(false, train, labels);
  if (have_test)
    load(true, test, test_labels);
  if (d.error)
    return;
  bool ids = !specs[0].data.id_column.empty();
  row_orders train_orders, test_orders;
  for (auto [what, s, orders] : {std::tuple{"training", &train, &train_orders},
                                 std::tuple{"test", &test, &test_orders}}) {
    if (std::string(what) == "test" && !have_test)
      continue;
    if (auto msg = align_rows(d.run.names, *s, ids, what, *orders);
        !msg.empty())
      return d.fail(errc::bad_input, msg);
  }
  for (std::size_t c = 0; have_test && c < n; ++c)
    if (test[c].feature_names != train[c].feature_names)
      return d.fail(errc::bad_input,
                    d.name(c) + "'s test data has other feature columns than "
                                "its training data");
  // Label counts are public (key announcements carry them): check that
  // they add up; which rows they are stays with the clients.
  auto check_counts = [&](const std::vector<std::uint64_t>& counts,
                          std::uint64_t rows, const char* what) {
    std::uint64_t sum = 0;
    std::string each;
    for (std::size_t c = 0; c < n; ++c) {
      sum += counts[c];
      each += (c ? ", " : "") + d.name(c) + " " + std::to_string(counts[c]);
    }
    if (sum != rows)
      d.fail(errc::bad_input,
             "the parties hold " + std::to_string(sum) + " labels for " +
                 std::to_string(rows) + " " + what + " rows (" + each +
                 "): every row's label must be held by exactly one party; "
                 "in a party's file an empty label cell marks another "
                 "party's row");
  };
  check_counts(labels, train[0].rows, "training");
  if (have_test && !d.error)
    check_counts(test_labels, test[0].rows, "test");
  if (d.error)
    return;
  for (auto [is_test, orders] :
       {std::pair{false, &train_orders}, std::pair{true, &test_orders}}) {
    for (std::size_t c = 0; c < orders->size() && !d.error; ++c) {
      auto& order = (*orders)[c];
      if (order.empty())
        continue;
      auto expected = order.size();
      d.step = "align";
      d.self
          ->request(d.clients[c], d.run.timeout, messages::align_atom::value,
                    session::align_request{is_test, std::move(order)})
          .receive(
              [&](std::uint64_t rows) {
                if (rows != expected)
                  d.fail(errc::protocol_error,
                         d.name(c) + " has " + std::to_string(rows) +
                             " rows after alignment, expected " +
                             std::to_string(expected));
              },
              [&](caf::error& e) { d.fail(e, c); });
    }
  }
  result.rows = train[0].rows;
  result.test_rows = have_test ? test[0].rows : 0;
  for (auto& s : train)
    result.features.push_back(std::move(s.feature_names));
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

} // namespace

caf::actor spawn_feverless_client(caf::actor_system& sys, std::string name) {
  return sys.spawn(client_impl, std::move(name),
                   std::optional<feverless_client_spec>{},
                   std::optional<std::uint64_t>{}, std::int32_t{0});
}

caf::actor spawn_feverless_client(caf::actor_system& sys,
                                  feverless_client_spec spec,
                                  std::optional<std::uint64_t> test_seed,
                                  std::int32_t index) {
  auto name = spec.name;
  return sys.spawn(client_impl, std::move(name),
                   std::optional<feverless_client_spec>{std::move(spec)},
                   test_seed, index);
}

feverless_outcome run_feverless_clients(caf::actor_system& sys,
                                        std::vector<caf::actor> clients,
                                        const feverless_run& run) {
  auto n = clients.size();
  caf::scoped_actor self{sys};
  driver d{self, clients, run, std::nullopt};
  // Ends every client, with the error if there is one, so that each one
  // that has not yet learned why the session ended ends with the reason.
  auto finish = [&](feverless_outcome out) {
    for (auto& c : clients)
      if (out.ok())
        self->send_exit(c, caf::exit_reason::user_shutdown);
      else
        self->send_exit(c, session_error(out.code, out.error));
    return out;
  };
  try {
    if (n < 2)
      throw input_error("FEVERLESS needs at least 2 clients (labels spread "
                        "over them), got " +
                        std::to_string(n));
    if (n > 256)
      throw input_error("FEVERLESS supports at most 256 clients, got " +
                        std::to_string(n));
    if (run.names.size() != n || (!run.load.empty() && run.load.size() != n))
      throw input_error("the session has " + std::to_string(n) +
                        " client actors but " +
                        std::to_string(run.names.size()) + " names");
    if (run.timeout.count() <= 0)
      throw input_error("the timeout must be positive");
    run.params.validate();
  } catch (const input_error& e) {
    return finish(failed<feverless_outcome>(errc::bad_input, e.what()));
  }
  for (auto& c : clients)
    self->monitor(c);
  feverless_result result;
  if (!run.load.empty())
    load_data(d, result);
  if (d.error)
    return finish(std::move(*d.error));

  // 1. Identity keys, gathered and handed out with the roster.
  std::vector<std::uint8_t> keys;
  d.ask_all<fvl::identity_key>(
      "exchange identity keys",
      [](std::size_t) { return std::make_tuple(messages::keys_atom::value); },
      [&](std::size_t, fvl::identity_key& k) {
        keys.insert(keys.end(), k.key.begin(), k.key.end());
      });
  d.ask_all<caf::ok_atom>(
      "roster",
      [&](std::size_t c) {
        fvl::roster r{static_cast<std::int32_t>(c), run.names,
                      run.timeout.count(), keys, run.params};
        return std::make_tuple(messages::peers_atom::value, std::move(r),
                               clients);
      },
      [](std::size_t, caf::ok_atom) {});
  if (d.error)
    return finish(std::move(*d.error));

  // 2. Training: every client reports its model when done.
  std::vector<std::size_t> all(n);
  std::iota(all.begin(), all.end(), 0);
  std::vector<fvl::trained> done(n);
  auto t0 = clock_type::now();
  d.step = "train";
  for (auto& c : clients)
    self->send(c, messages::train_atom::value);
  d.await_each<fvl::trained>(
      all, [&](std::size_t c, fvl::trained& t) { done[c] = std::move(t); });
  if (d.error)
    return finish(std::move(*d.error));
  result.train_seconds = seconds_since(t0);
  const auto& first = done[0];
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
  result.clients.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    auto& t = done[c];
    auto& cr = result.clients[c];
    cr.name = run.names[c];
    for (std::size_t k = 0; k < t.split_trees.size(); ++k)
      cr.splits[{t.split_trees[k], t.split_nodes[k]}] =
          fv::owned_split{t.split_features[k], 0, t.split_thresholds[k]};
  }

  // 3. Federated prediction, client 0 asking.
  bool predict = run.predict && (run.load.empty() || result.test_rows > 0);
  if (predict) {
    auto t1 = clock_type::now();
    d.step = "predict";
    self->send(clients[0], messages::predict_atom::value);
    d.await_each<fvl::predicted>({0}, [&](std::size_t, fvl::predicted& p) {
      result.margins = std::move(p.margins);
    });
    if (d.error)
      return finish(std::move(*d.error));
    result.predict_seconds = seconds_since(t1);
    if (!run.load.empty())
      gather_labels(d, result);
    if (d.error)
      return finish(std::move(*d.error));
  }

  // 4. Byte counts.
  if (auto e = gather_bytes<feverless_outcome>(
          self, clients, run.names, run.timeout,
          [&](std::size_t c, session::byte_stats& b) {
            result.clients[c].bytes = b;
          }))
    return finish(std::move(*e));
  feverless_outcome out;
  out.result = std::move(result);
  return finish(std::move(out));
}

} // namespace veil::actors
