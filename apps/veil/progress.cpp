#include "apps/veil/progress.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <unistd.h>

#include "apps/veil/commands.hpp"

namespace veil::apps {

std::string human_bytes(std::uint64_t bytes) {
  static const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB"};
  double v = static_cast<double>(bytes);
  std::size_t u = 0;
  while (v >= 1000 && u + 1 < std::size(units)) {
    v /= 1000;
    ++u;
  }
  std::ostringstream s;
  if (u == 0)
    s << bytes << " B";
  else
    s << std::fixed
      << std::setprecision(v < 10    ? 2
                           : v < 100 ? 1
                                     : 0)
      << v << " " << units[u];
  return s.str();
}

std::string human_seconds(double seconds) {
  std::ostringstream s;
  if (!(seconds >= 0) || !std::isfinite(seconds))
    return "?";
  if (seconds < 60) {
    s << std::fixed << std::setprecision(1) << seconds << " s";
    return s.str();
  }
  auto whole = static_cast<long long>(std::llround(seconds));
  if (whole < 3600)
    s << whole / 60 << " min " << std::setw(2) << std::setfill('0')
      << whole % 60 << " s";
  else
    s << whole / 3600 << " h " << std::setw(2) << std::setfill('0')
      << (whole % 3600) / 60 << " min";
  return s.str();
}

progress_printer::progress_printer(bool quiet, std::string unit, std::string on)
    : quiet_(quiet), terminal_(::isatty(STDERR_FILENO) != 0),
      unit_(std::move(unit)), on_(std::move(on)),
      start_(std::chrono::steady_clock::now()) {}

progress_printer::~progress_printer() {
  if (line_open_)
    std::cerr << "\n" << std::flush;
}

void progress_printer::show(std::size_t done, std::size_t total,
                            const std::map<std::string, double>& metrics,
                            std::optional<std::uint64_t> bytes) {
  // Off a terminal, a line per finished step only (a party repeats its
  // last report while it works).
  if (quiet_ || done == 0 || (!terminal_ && done == last_done_))
    return;
  const auto& shown =
      metrics.empty() && done == last_done_ ? last_metrics_ : metrics;
  last_done_ = done;
  double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_)
          .count();
  std::ostringstream line;
  line << "[" << unit_ << " " << done << "/" << total << "] ";
  if (terminal_) { // a bar, redrawn in place
    constexpr std::size_t width = 20;
    auto filled = total > 0 ? std::min(width, done * width / total) : width;
    line << std::string(filled, '#') << std::string(width - filled, '.') << " ";
  }
  line << human_seconds(elapsed);
  if (done < total)
    line << ", ETA "
         << human_seconds(elapsed / static_cast<double>(done) *
                          static_cast<double>(total - done));
  if (bytes)
    line << ", " << human_bytes(*bytes);
  if (!shown.empty())
    line << "  " << on_ << ": " << format_metrics(shown);
  last_metrics_ = shown;
  if (terminal_) {
    std::cerr << "\r" << line.str() << "\033[K" << std::flush;
    line_open_ = true;
  } else {
    std::cerr << line.str() << "\n" << std::flush;
  }
}

actors::progress_fn progress_printer::callback() {
  if (quiet_)
    return {};
  return [this](const protocols::session::progress_report& r) {
    if (r.phase != "train" || r.total <= 0)
      return;
    show(static_cast<std::size_t>(r.done), static_cast<std::size_t>(r.total),
         protocols::session::metrics_of(r.metric_names, r.metric_values),
         r.bytes);
  };
}

} // namespace veil::apps
