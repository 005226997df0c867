#pragma once

// The machinery of live_session (actors/live_session.hpp): the actor
// system, the scoped actor that drives the parties, the parties, and the
// steps every protocol shares. A protocol supplies session_hooks<P> (its
// steps as functions on a session_driver, not an actor) and instantiates
// live_session<P> in its own source file:
//
//   template <> struct session_hooks<my_protocol> {
//     using run = my_run;                       // what the driver needs
//     static party_kind kind();                 // its parties, by name
//     static run run_of(const my_party_config&);
//     static run run_of(const my_config&);      // given at spawn, if any
//     static auto& given_specs(my_config&);     // the specs given at spawn
//     static caf::actor spawn_given(caf::actor_system&, spec,
//                                   const my_config&, std::int32_t index);
//     static void check(const run&, std::size_t parties); // throws input_error
//     static void open(driver&, const run&, result&);     // load, roster
//     static void train(driver&, const run&, result&);
//     static void predict(driver&, const run&, result&);
//     static void collect(driver&, const run&, result&); // after training
//     static void store_bytes(result&, const run&, std::size_t party,
//                             protocols::session::byte_stats&);
//   };
//
// shared_session_hooks (below) supplies given_specs, spawn_given, collect
// and store_bytes for a protocol whose given config is a given_config and
// whose result a result_base.
//   template class live_session<my_protocol>;

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/front_door.hpp"
#include "actors/live_session.hpp"
#include "actors/local_system.hpp"
#include "actors/remote.hpp"
#include "actors/role_host.hpp"
#include "actors/support.hpp"
#include "learners/input_error.hpp"

namespace veil::actors {

template <class Protocol>
struct session_hooks;

/// Names a result's parties (a result_base's) by the run's names, once.
template <class Result>
void name_parties(Result& result, const session_run& r) {
  if (result.parties.size() == r.names.size())
    return;
  result.parties.resize(r.names.size());
  for (std::size_t c = 0; c < r.names.size(); ++c)
    result.parties[c].name = r.names[c];
}

/// Members most protocols' session hooks share, for session_hooks<P> to
/// derive from: parties given their data at spawn (P::given_config, a
/// given_config<Spec>) are spawned on the role host of `PartyHooks`
/// (actors/role_host.hpp); the result (a result_base) names its parties
/// and keeps their byte counts; nothing to collect besides.
template <class P, class PartyHooks>
struct shared_session_hooks {
  using given = typename P::given_config;
  static auto& given_specs(given& cfg) { return cfg.parties; }
  static caf::actor spawn_given(caf::actor_system& sys,
                                typename PartyHooks::spec spec,
                                const given& cfg, std::int32_t index) {
    return actors::spawn_given<PartyHooks>(sys, std::move(spec), cfg.test_seed,
                                           index);
  }
  template <class Driver, class Run>
  static void collect(Driver&, const Run&, typename P::result&) {}
  static void store_bytes(typename P::result& result, const session_run& r,
                          std::size_t c, protocols::session::byte_stats& b) {
    name_parties(result, r);
    result.parties[c].bytes = std::move(b);
  }
};

template <class Protocol>
struct live_session<Protocol>::impl {
  using hooks = session_hooks<Protocol>;
  using outcome = typename Protocol::outcome;
  using driver = session_driver<outcome>;

  // Destroyed in reverse order: the driver and the scoped actor before the
  // actor system, the system before its configuration and the relays to
  // the nodes it talks to.
  std::vector<std::unique_ptr<tunnel>> tunnels;
  std::unique_ptr<caf::actor_system_config> sys_cfg;
  std::unique_ptr<caf::actor_system> own_sys;
  std::optional<caf::scoped_actor> self;
  std::vector<caf::actor> parties;
  typename hooks::run run;
  typename Protocol::result result;
  std::optional<driver> d;
  /// The failure that ended the session (kept for close()).
  std::optional<outcome> failure;
  progress_fn progress;
  bool given = false; ///< data given at spawn (no load step)
  bool closed = false;
  bool trained = false;

  ~impl() {
    if (!closed)
      close();
  }

  /// A system of this process only, or one that talks to other nodes.
  void make_system(bool remote, const local_options& opts,
                   const tls_files& tls) {
    if (remote)
      sys_cfg = std::make_unique<net_config>(opts.threads, tls);
    else
      sys_cfg = std::make_unique<local_config>(opts);
    own_sys = std::make_unique<caf::actor_system>(*sys_cfg);
    self.emplace(*own_sys);
  }

  /// Ends the session now: every party ends with `out`'s error.
  bool fail_now(outcome out) {
    if (d)
      d->finish(out);
    else if (self)
      send_exits(*self, parties);
    failure = std::move(out);
    closed = true;
    return false;
  }

  /// After a step: whether it went well; if not, the session ends.
  bool settle() {
    if (!d->error)
      return true;
    return fail_now(std::move(*d->error));
  }

  /// Checks the run for `n` parties before any is contacted.
  bool check(std::size_t n) {
    try {
      hooks::check(run, n);
      return true;
    } catch (const input_error& e) {
      return fail_now(
          failed<outcome>(protocols::session::errc::bad_input, e.what()));
    }
  }

  /// Takes the spawned parties (in `sys`, driven by `self`), monitors them
  /// and opens the session.
  bool start(std::vector<caf::actor> ps) {
    parties = std::move(ps);
    d.emplace(driver{*self, parties, run.names, run.timeout, std::nullopt});
    d->on_progress = progress;
    for (auto& c : parties)
      (*self)->monitor(c);
    hooks::open(*d, run, result);
    return settle();
  }

  /// Whether a step may run; a refused step (closed, or out of order)
  /// ends the session with `why`.
  bool ready(bool in_order, const char* why) {
    if (closed)
      return false;
    if (in_order)
      return true;
    return fail_now(
        failed<outcome>(protocols::session::errc::bad_request, why));
  }

  bool train() {
    if (!ready(!trained && !run.restore,
               "train once per session, and not in a prediction session"))
      return false;
    hooks::train(*d, run, result);
    trained = true;
    return settle();
  }

  bool predict() {
    if (!ready(trained || run.restore,
               "predict after training, or in a prediction session"))
      return false;
    hooks::predict(*d, run, result);
    if (!settle())
      return false;
    ++result.predictions;
    if (given)
      result.test_rows = result.margins.size();
    return true;
  }

  bool save_parts(const protocols::session::model_parts& parts) {
    if (!ready(trained && !parts.empty(),
               "save model parts after training, to a named model"))
      return false;
    auto kept = static_cast<std::int32_t>(result.model.trees.size());
    d->ask_parts(false, parts,
                 [&](std::size_t, protocols::session::part_request& p) {
                   p.trees = kept;
                 });
    return settle();
  }

  bool collect_stats() {
    if (!ready(true, ""))
      return false;
    hooks::collect(*d, run, result);
    d->template ask_all<protocols::session::byte_stats>(
        "collect byte counts",
        [](std::size_t) {
          return std::make_tuple(messages::stats_atom::value);
        },
        [&](std::size_t c, protocols::session::byte_stats& b) {
          hooks::store_bytes(result, run, c, b);
        });
    return settle();
  }

  outcome close() {
    if (closed) {
      if (failure)
        return *failure;
      return failed<outcome>(protocols::session::errc::bad_request,
                             "the session is closed");
    }
    closed = true;
    if (!d) {
      failure = failed<outcome>(protocols::session::errc::bad_request,
                                "the session was never opened");
      return *failure;
    }
    outcome out;
    out.result = result;
    d->finish(out);
    failure = failed<outcome>(protocols::session::errc::bad_request,
                              "the session is closed");
    return out;
  }

  /// A whole one-shot session: train (unless it is a prediction session),
  /// predict when the run asks and there are rows, keep the model parts
  /// when the run names them, the byte counts, close.
  outcome run_to_end() {
    run_steps(); // a failed step is the close's outcome
    return close();
  }

  /// run_to_end's steps without the close: the outcome so far, the
  /// parties kept for more predictions; closed if a step failed.
  outcome run_and_keep() {
    if (!run_steps())
      return close();
    outcome out;
    out.result = result;
    return out;
  }

  bool run_steps() {
    bool ok = !closed && (run.restore || train());
    if (ok && run.predict && (run.load.empty() || result.test_rows > 0))
      ok = predict();
    if (ok && !run.restore && !run.parts.empty())
      ok = save_parts(run.parts);
    return ok && collect_stats();
  }
};

/// A new session's state, keeping the progress callback of `old` (set
/// before open); `old`, if open, is closed.
template <class Impl>
std::unique_ptr<Impl> fresh_impl(std::unique_ptr<Impl> old) {
  auto s = std::make_unique<Impl>();
  if (old)
    s->progress = std::move(old->progress);
  return s;
}

template <class P>
live_session<P>::live_session() = default;
template <class P>
live_session<P>::~live_session() = default;
template <class P>
live_session<P>::live_session(live_session&&) noexcept = default;
template <class P>
live_session<P>& live_session<P>::operator=(live_session&&) noexcept = default;

template <class P>
bool live_session<P>::open(const party_config& cfg, const tls_files& tls,
                           const local_options& opts) {
  impl_ = fresh_impl(std::move(impl_));
  auto& s = *impl_;
  s.run = impl::hooks::run_of(cfg);
  if (!s.check(s.run.names.size()))
    return false;
  bool remote = tls.enabled();
  for (const auto& p : cfg.parties)
    remote = remote || p.is_remote();
  s.make_system(remote, opts, tls);
  std::vector<caf::actor> parties;
  if (auto f = spawn_parties(*s.own_sys, *s.self, cfg.parties, tls, cfg.timeout,
                             impl::hooks::kind(), parties, s.tunnels))
    return s.fail_now(failed<outcome_type>(f->code, std::move(f->error)));
  return s.start(std::move(parties));
}

template <class P>
bool live_session<P>::open(given_config cfg, const local_options& opts) {
  impl_ = fresh_impl(std::move(impl_));
  auto& s = *impl_;
  if constexpr (std::same_as<given_config, none_given>) {
    return s.fail_now(
        failed<outcome_type>(protocols::session::errc::bad_input,
                             "this protocol's parties load their own data"));
  } else {
    s.given = true;
    s.run = impl::hooks::run_of(cfg);
    if (!s.check(s.run.names.size()))
      return false;
    // Parties that load their own files on nodes, besides (a protocol's
    // given config with remote_parties: LDP boosting's blocks of owners).
    constexpr bool mixed = requires {
      cfg.remote_parties;
      cfg.tls;
    };
    if constexpr (mixed)
      s.make_system(!cfg.remote_parties.empty() || cfg.tls.enabled(), opts,
                    cfg.tls);
    else
      s.make_system(false, opts, {});
    auto& specs = impl::hooks::given_specs(cfg);
    // The rows and columns of data given at spawn are the caller's: the
    // parties never report them.
    s.result.rows = specs.empty() ? 0 : specs[0].features.rows();
    std::vector<caf::actor> parties;
    for (std::size_t c = 0; c < specs.size(); ++c) {
      // Named columns (vertical protocols); a horizontal protocol's
      // parties all have the same ones, unnamed.
      if constexpr (requires { specs[c].features.feature_names(); })
        s.result.features.push_back(specs[c].features.feature_names());
      parties.push_back(impl::hooks::spawn_given(
          *s.own_sys, std::move(specs[c]), cfg, static_cast<std::int32_t>(c)));
    }
    if constexpr (mixed) {
      std::vector<caf::actor> remote;
      if (auto f = spawn_parties(*s.own_sys, *s.self, cfg.remote_parties,
                                 cfg.tls, cfg.timeout, impl::hooks::kind(),
                                 remote, s.tunnels)) {
        s.parties = std::move(parties); // ended with the others
        return s.fail_now(failed<outcome_type>(f->code, std::move(f->error)));
      }
      parties.insert(parties.end(), remote.begin(), remote.end());
    }
    return s.start(std::move(parties));
  }
}

template <class P>
typename live_session<P>::outcome_type
live_session<P>::run(const party_config& cfg, const tls_files& tls,
                     const local_options& opts,
                     const progress_fn& on_progress) {
  live_session s;
  s.on_progress(on_progress);
  s.open(cfg, tls, opts);
  return s.run_to_end();
}

template <class P>
typename live_session<P>::outcome_type
live_session<P>::run(given_config cfg, const local_options& opts,
                     const progress_fn& on_progress) {
  live_session s;
  s.on_progress(on_progress);
  s.open(std::move(cfg), opts);
  return s.run_to_end();
}

template <class P>
void live_session<P>::on_progress(progress_fn f) {
  if (!impl_)
    impl_ = std::make_unique<impl>();
  impl_->progress = f;
  if (impl_->d)
    impl_->d->on_progress = std::move(f);
}

template <class P>
bool live_session<P>::train() {
  return impl_ && impl_->train();
}

template <class P>
bool live_session<P>::predict() {
  return impl_ && impl_->predict();
}

template <class P>
bool live_session<P>::save_parts(const protocols::session::model_parts& parts) {
  return impl_ && impl_->save_parts(parts);
}

template <class P>
bool live_session<P>::collect_stats() {
  return impl_ && impl_->collect_stats();
}

template <class P>
bool live_session<P>::ok() const {
  return impl_ && !impl_->closed;
}

template <class P>
const typename live_session<P>::result_type& live_session<P>::result() const {
  static const result_type none{};
  return impl_ ? impl_->result : none;
}

template <class P>
typename live_session<P>::outcome_type live_session<P>::close() {
  if (!impl_)
    return failed<outcome_type>(protocols::session::errc::bad_request,
                                "the session was never opened");
  return impl_->close();
}

template <class P>
typename live_session<P>::outcome_type live_session<P>::run_to_end() {
  if (!impl_)
    return close();
  return impl_->run_to_end();
}

template <class P>
typename live_session<P>::outcome_type live_session<P>::run_and_keep() {
  if (!impl_)
    return close();
  return impl_->run_and_keep();
}

/// The one-shot session on `parties`, already spawned in `sys` (here or on
/// other nodes; or test doubles that speak the same steps), with `run`.
template <class P>
typename P::outcome
run_on_actors(caf::actor_system& sys, std::vector<caf::actor> parties,
              typename session_hooks<P>::run run, progress_fn progress = {}) {
  typename live_session<P>::impl s;
  s.run = std::move(run);
  s.progress = std::move(progress);
  s.self.emplace(sys);
  if (s.check(parties.size()))
    s.start(std::move(parties));
  else
    send_exits(*s.self, parties);
  return s.run_to_end();
}

} // namespace veil::actors
