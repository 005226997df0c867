#pragma once

// One party actor for every protocol whose parties run on peer_state: the
// session steps every party answers (load, align, roster, train, predict,
// part, stats, liveness ticks) and the protocol's wire messages, with what
// differs between protocols supplied as hooks, not as an actor. A protocol
// gives a hooks struct H:
//
//   using state = ...;   // derives from data_party_state<spec>; has_role()
//   using spec = ...;    // what a party given its data at spawn gets
//   using settings = ...; // what its roster carries (session::roster's
//                         // settings, packed by messages::pack)
//   using message = ...; // its wire variant, `failure` among them
//   using failure = ...;
//   static constexpr const char* name;    // the actor's name in CAF's logs
//   static void init(actor*);             // at spawn (keys, say)
//   static caf::result<R> load(actor*, session::load_request&);
//   static caf::result<caf::ok_atom> join(actor*, const session::roster&,
//                                         const settings&,
//                                         const std::vector<caf::actor>&,
//                                         std::int32_t index);
//                                         // checks its settings, then
//                                         // st.join(...) and its role
//   static void train(actor*);
//   static void predict(actor*);
//   static auto on_message(actor*, std::int32_t from, message&);
//   static std::optional<...> resume(actor*); // optional: what on_message's
//                                         // role does once its answer is
//                                         // out, as on_message's outcome
//   static void after_step(actor*);       // reports finished work
//   static caf::result<std::uint64_t> save_part(actor*, part_request&);
//   static caf::result<std::uint64_t> restore_part(actor*, part_request&);
//   static caf::message_handler extra(actor*); // its own steps, or {}
//
// where actor is host_actor<H>; loading_party_hooks<state> supplies init,
// load and extra for a party that loads its own file. load runs only when
// refuse_load allows it; save_part and restore_part only for the session's
// coordinator between steps; an exception join, save_part or restore_part
// throws is the party's bad input.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/behavior.hpp>
#include <caf/message_handler.hpp>
#include <caf/stateful_actor.hpp>

#include "actors/support.hpp"

namespace veil::actors {

template <class Hooks>
using host_actor = caf::stateful_actor<typename Hooks::state>;

/// The hooks most protocols share, for a hooks struct to derive from: no
/// work at spawn, a load step that reads the party's own file into its
/// state's `loaded` rows (load_party_data), no steps of its own.
template <class State>
struct loading_party_hooks {
  using actor = caf::stateful_actor<State>;
  static void init(actor*) {}
  static caf::result<protocols::session::data_summary>
  load(actor* self, protocols::session::load_request& r) {
    auto& st = self->state;
    auto s = load_party_data(st.me, st.host, r, st.loaded);
    if (!s)
      return std::move(s.error());
    return std::move(*s);
  }
  static caf::message_handler extra(actor*) { return {}; }
};

/// The part steps of a protocol whose parties keep no model part files
/// (its session's check refuses --model-out before any party is asked): a
/// party asked anyway refuses, naming itself.
template <class State>
struct no_part_hooks {
  using actor = caf::stateful_actor<State>;
  static caf::result<std::uint64_t>
  save_part(actor* self, protocols::session::part_request&) {
    return refuse(self);
  }
  static caf::result<std::uint64_t>
  restore_part(actor* self, protocols::session::part_request&) {
    return refuse(self);
  }
  static caf::error refuse(actor* self) {
    return session_error(protocols::session::errc::bad_request,
                         self->state.me + ": this protocol's parties keep no "
                                          "model part files");
  }
};

/// Hands one wire message to the role and routes what it answers (and,
/// with the hooks' resume, what its deferred work then gives).
template <class Hooks, class T>
void host_wire(host_actor<Hooks>* self, T& x) {
  typename Hooks::message m{std::move(x)};
  // Non-const: a role may take a message's contents (plain's passive party
  // keeps a tree's gradients without copying them).
  auto handle = [self](std::int32_t from, typename Hooks::message& m) {
    return Hooks::on_message(self, from, m);
  };
  if constexpr (requires { Hooks::resume(self); })
    handle_wire<typename Hooks::failure>(
        self, std::move(m), handle, [self] { return Hooks::resume(self); },
        Hooks::after_step);
  else
    handle_wire<typename Hooks::failure>(self, std::move(m), handle,
                                         Hooks::after_step);
}

/// One handler per alternative of the protocol's wire variant.
template <class Hooks, class... Ts>
caf::message_handler host_wire_handlers(host_actor<Hooks>* self,
                                        std::variant<Ts...>*) {
  return {[self](Ts& x) { host_wire<Hooks>(self, x); }...};
}

/// Checks a roster the way every party does (one per session, well formed
/// with this party in it, at the index of its test seed, after its data
/// was loaded unless it was given) and hands it with its unpacked
/// settings and this party's index to the hooks' join; an exception the
/// join throws is the party's bad input.
template <class Hooks>
caf::result<caf::ok_atom> host_roster(host_actor<Hooks>* self,
                                      const protocols::session::roster& r,
                                      const std::vector<caf::actor>& peers) {
  using protocols::session::errc;
  auto& st = self->state;
  if (st.index >= 0)
    return session_error(errc::bad_request, st.me + ": got a second roster");
  auto at = check_roster(st.me, r, peers, self->address(), st.seed_index);
  if (!at)
    return std::move(at.error());
  if (st.test_seed && *at != st.seed_index)
    return session_error(errc::bad_request,
                         st.me + ": the roster's index differs from the "
                                 "index of its test seed");
  if (!st.given && !st.loaded.train_loaded && !st.loaded.test_loaded)
    return session_error(errc::bad_request,
                         st.me + ": roster before its data was loaded");
  typename Hooks::settings s;
  if (!messages::unpack(r.settings, s))
    return session_error(errc::bad_request,
                         st.me + ": malformed roster (its settings are not "
                                 "this protocol's)");
  try {
    return Hooks::join(self, r, s, peers, *at);
  } catch (const std::exception& e) {
    // Its settings or its data cannot make a role (params that do not
    // validate, columns a role refuses): the party's bad input.
    return session_error(errc::bad_input, st.me + ": " + e.what());
  }
}

/// Keeps (`r.save`) or restores a model part, for the coordinator only.
template <class Hooks>
caf::result<std::uint64_t> host_part(host_actor<Hooks>* self,
                                     protocols::session::part_request& r) {
  auto& st = self->state;
  busy_clock working{st.busy_seconds};
  if (auto refused = refuse_part_request(self))
    return std::move(*refused);
  try {
    // On a node, its own store, whatever path the coordinator asked for.
    if (st.host.hosted())
      r.path = stored_part_path(st.host, st.me, r.model_id);
    return r.save ? Hooks::save_part(self, r) : Hooks::restore_part(self, r);
  } catch (const std::exception& e) {
    if (st.host.hosted())
      std::cerr << "veil: " << st.me << " could not "
                << (r.save ? "save" : "restore")
                << " its model part: " << e.what() << std::endl;
    return session_error(protocols::session::errc::bad_input,
                         st.me + ": " + without_paths(st.host, e.what()));
  }
}

template <class Hooks>
caf::behavior host_impl(host_actor<Hooks>* self, std::string name,
                        std::optional<typename Hooks::spec> given,
                        std::optional<std::uint64_t> test_seed,
                        std::int32_t seed_index, hosting host) {
  auto& st = self->state;
  st.me = std::move(name);
  st.host = std::move(host);
  st.given = std::move(given);
  st.test_seed = test_seed;
  st.seed_index = seed_index;
  Hooks::init(self);
  watch_peers(self);
  caf::message_handler steps{
      [=](messages::load_atom, protocols::session::load_request& r)
          -> decltype(Hooks::load(self, r)) {
        if (!obeys(self, "load"))
          return refused_request();
        if (auto refused = refuse_load(self))
          return std::move(*refused);
        return Hooks::load(self, r);
      },
      [=](messages::align_atom,
          protocols::session::align_request& r) -> caf::result<std::uint64_t> {
        if (!obeys(self, "align"))
          return refused_request();
        return align_loaded(self, r);
      },
      [=](messages::peers_atom, const protocols::session::roster& r,
          const std::vector<caf::actor>& peers) -> caf::result<caf::ok_atom> {
        if (!obeys(self, "roster"))
          return refused_request();
        return host_roster<Hooks>(self, r, peers);
      },
      [=](messages::train_atom) {
        if (obeys(self, "train"))
          Hooks::train(self);
      },
      [=](messages::predict_atom) {
        if (obeys(self, "predict"))
          Hooks::predict(self);
      },
      [=](messages::part_atom, protocols::session::part_request& r)
          -> decltype(host_part<Hooks>(self, r)) {
        if (!obeys(self, "model part"))
          return refused_request();
        return host_part<Hooks>(self, r);
      },
      [=](messages::stats_atom) -> caf::result<protocols::session::byte_stats> {
        if (!obeys(self, "stats"))
          return refused_request();
        const auto& st = self->state;
        return byte_stats_of(st.me, st.bytes, st.links, st.busy_seconds);
      },
      [=](messages::tick_atom, std::uint64_t epoch) { on_tick(self, epoch); },
  };
  auto wire = host_wire_handlers<Hooks>(
      self, static_cast<typename Hooks::message*>(nullptr));
  auto extra = Hooks::extra(self);
  return extra ? steps.or_else(wire).or_else(extra) : steps.or_else(wire);
}

/// A party of the protocol of `Hooks` called `name`: given its data
/// (`given`) or loading it from its own files, started as `host` says.
/// `test_seed` (tests only): seeded randomness, with `index` its roster
/// index.
template <class Hooks>
caf::actor spawn_host(caf::actor_system& sys, std::string name,
                      std::optional<typename Hooks::spec> given = {},
                      std::optional<std::uint64_t> test_seed = {},
                      std::int32_t index = 0, hosting host = {}) {
  return sys.spawn(host_impl<Hooks>, std::move(name), std::move(given),
                   test_seed, index, std::move(host));
}

/// A party of the protocol of `Hooks` given its data `spec` (named by its
/// `name`), as spawn_host.
template <class Hooks>
caf::actor spawn_given(caf::actor_system& sys, typename Hooks::spec spec,
                       std::optional<std::uint64_t> test_seed = {},
                       std::int32_t index = 0) {
  auto name = spec.name;
  return spawn_host<Hooks>(sys, std::move(name), std::move(spec), test_seed,
                           index);
}

/// The party kind `name` (what `veil node` hosts): a party of the
/// protocol of `Hooks` that loads its own data.
template <class Hooks>
party_kind kind_of(const char* name) {
  return {name,
          [](caf::actor_system& sys, std::string party, const hosting& host) {
            return spawn_host<Hooks>(sys, std::move(party), {}, {}, 0, host);
          }};
}

} // namespace veil::actors
