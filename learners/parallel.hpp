#pragma once

#include <algorithm>
#include <cstddef>

namespace veil::learners {

/// How many of `threads` are worth using for a loop of `work` elementary
/// steps, each thread given at least `min_work_per_thread`. An OpenMP
/// fork/join costs microseconds on an idle machine and, when the cores are
/// busy with other processes, a spinning team can cost milliseconds; so
/// small loops run on one thread.
inline int threads_for(std::size_t work, int threads,
                       std::size_t min_work_per_thread = 1 << 16) {
  auto useful = std::max<std::size_t>(work / min_work_per_thread, 1);
  return static_cast<int>(std::min<std::size_t>(
      useful, static_cast<std::size_t>(std::max(threads, 1))));
}

} // namespace veil::learners
