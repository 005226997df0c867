#pragma once

#include <memory>
#include <thread>

#include "protocols/dp/noise_reserve.hpp"

namespace veil::actors {

/// Fills a role's noise reserve (dp::noise_reserve) ahead of need on a
/// thread of the lowest priority (SCHED_IDLE: it runs when a core would
/// otherwise idle), so that the role takes draws instead of making them on
/// its queries' path; the draws' law is the same either way. Where
/// SCHED_IDLE is refused, the thread stays at normal priority: still
/// correct, only competing for the cores. Stopped and joined when it goes.
class noise_filler {
public:
  /// Starts filling `reserve`, unless it is null or a thread already runs.
  void start(std::shared_ptr<protocols::dp::noise_reserve> reserve);
  /// Asks the thread to stop (it ends within one draw).
  void stop() { thread_.request_stop(); }
  bool started() const { return thread_.joinable(); }

private:
  std::jthread thread_;
};

} // namespace veil::actors
