#pragma once

// One long-lived session: open() -> train() -> predict() any number of
// times -> save_parts() / collect_stats() -> close(), its parties alive
// between the calls (here or on their `veil node`s). The CLI's one-shot
// runs (live_session<P>::run), the tests and the REPL drive this one
// handle. CAF-free: apps/ holds one without CAF's
// headers. A protocol plugs in with a tag type naming its configurations
// and result (feverless_protocol, opboost_protocol) and the hooks of
// actors/live_session_impl.hpp.
//
// Every step is a blocking call on the caller's thread and never hangs:
// each request has the session's timeout and the parties watch each other.
// The first failure ends the session on every party at once, with its
// reason; later calls return false, and close() returns that failure.

#include <concepts>
#include <cstdint>
#include <memory>

#include "actors/session.hpp"
#include "protocols/session/wire.hpp"

namespace veil::actors {

/// A protocol's configuration of parties given their data at spawn, or
/// none_given for a protocol without one (plain).
struct none_given {};
template <class Protocol>
struct given_config_of {
  using type = none_given;
};
template <class Protocol>
requires requires {
  typename Protocol::given_config;
}
struct given_config_of<Protocol> {
  using type = typename Protocol::given_config;
};

template <class Protocol>
class live_session {
public:
  using result_type = typename Protocol::result;
  using outcome_type = typename Protocol::outcome;
  using party_config = typename Protocol::party_config;
  using given_config = typename given_config_of<Protocol>::type;

  /// The one-shot session of `veil train` and `veil predict`: a session
  /// opened with these arguments and run to its end (run_to_end), calling
  /// `on_progress` on this thread. Never throws for bad input (it comes
  /// back as errc::bad_input) and never hangs.
  static outcome_type run(const party_config& cfg, const tls_files& tls,
                          const local_options& opts = {},
                          const progress_fn& on_progress = {});
  static outcome_type run(given_config cfg, const local_options& opts = {},
                          const progress_fn& on_progress = {});

  live_session();
  /// Ends the parties if the session is still open.
  ~live_session();
  live_session(live_session&&) noexcept;
  live_session& operator=(live_session&&) noexcept;

  /// Parties that load their own files, in this process or on their nodes
  /// (over TLS when `tls` is enabled): spawns them, loads and aligns their
  /// rows, hands out the roster; for a prediction session (the config's
  /// `restore`) each restores its part of the model.
  bool open(const party_config& cfg, const tls_files& tls,
            const local_options& opts = {});
  /// Parties given their data at spawn, all in this process (protocols
  /// that have such a configuration).
  bool open(given_config cfg, const local_options& opts = {});
  /// Called on the caller's thread with each progress report a party sends
  /// while a step waits for it (before open(), or between steps).
  void on_progress(progress_fn f);

  /// Trains once; the model and the privacy report go to result().
  bool train();
  /// The predicting party predicts the session's rows to predict (its
  /// eval data or the test files) into result().margins; any number of
  /// times. Where the protocol draws fresh noise per prediction (OpBoost),
  /// each call spends the prediction rows' budget again: result().predictions
  /// counts them.
  bool predict();
  /// Each party keeps its part of the trained model where it runs, in
  /// protocols::session::part_path(parts.path, its name).
  bool save_parts(const protocols::session::model_parts& parts);
  /// Every party's byte counts and computing time into result().
  bool collect_stats();

  /// Open, and nothing has failed.
  bool ok() const;
  /// What the session has produced so far (empty before open).
  const result_type& result() const;
  /// Ends every party (with the failure, if one ended the session): the
  /// session's outcome. The handle is closed afterwards.
  outcome_type close();

  /// The one-shot session of `veil train` and `veil predict` on an open
  /// handle: train (not in a prediction session), predict when the
  /// config asks and there are rows to predict, keep the model parts when
  /// the config names them, collect the byte counts, close.
  outcome_type run_to_end();
  /// run_to_end's steps without the close: the outcome (a copy of the
  /// result), the parties kept for predict(); closed if a step failed.
  outcome_type run_and_keep();

  struct impl;

private:
  std::unique_ptr<impl> impl_;
};

} // namespace veil::actors
