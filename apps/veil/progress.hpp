#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "actors/session.hpp"

namespace veil::apps {

/// "96.6 MB" (decimal units, as network rates are quoted).
std::string human_bytes(std::uint64_t bytes);

/// "4.2 s", "3 min 05 s", "1 h 02 min".
std::string human_seconds(double seconds);

/// Training progress on stderr, one line per round: "[tree 12/100] 1.4 s,
/// ETA 10.3 s, 2.1 MB  test: auc 0.91  logloss 0.32". On a terminal a
/// bar redrawn in place; otherwise one line per round (logs, CI,
/// notebooks); nothing with --quiet.
class progress_printer {
public:
  /// `unit`: what a step counts ("round" or "tree"); `on`: where the
  /// metrics come from ("test").
  progress_printer(bool quiet, std::string unit, std::string on = "test");
  ~progress_printer();
  progress_printer(const progress_printer&) = delete;
  progress_printer& operator=(const progress_printer&) = delete;

  /// Step `done` of `total` finished, with its metrics and the bytes
  /// exchanged so far (when known).
  void show(std::size_t done, std::size_t total,
            const std::map<std::string, double>& metrics,
            std::optional<std::uint64_t> bytes = std::nullopt);

  /// What a session calls with each progress report of its training.
  actors::progress_fn callback();

private:
  bool quiet_;
  bool terminal_;
  std::string unit_, on_;
  std::chrono::steady_clock::time_point start_;
  std::size_t last_done_ = 0;
  /// The last metrics shown: a repeated report of the same step (a busy
  /// party's keep-alive) carries none.
  std::map<std::string, double> last_metrics_;
  bool line_open_ = false;
};

} // namespace veil::apps
