#include "actors/noise_filler.hpp"

#include <pthread.h>
#include <sched.h>
#include <utility>

namespace veil::actors {

void noise_filler::start(
    std::shared_ptr<protocols::dp::noise_reserve> reserve) {
  if (!reserve || started())
    return;
  thread_ = std::jthread([reserve = std::move(reserve)](std::stop_token stop) {
    sched_param lowest{};
    pthread_setschedparam(pthread_self(), SCHED_IDLE, &lowest);
    reserve->fill(stop);
  });
}

} // namespace veil::actors
