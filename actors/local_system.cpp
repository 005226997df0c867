#include "actors/local_system.hpp"

#include <algorithm>
#include <thread>

#include <caf/atom.hpp>
#include <caf/exit_reason.hpp>

#include "messages/register.hpp"

namespace veil::actors {

local_config::local_config(const local_options& o) {
  messages::register_types(*this);
  auto threads =
      o.threads > 0
          ? o.threads
          : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  set("scheduler.max-threads", threads);
  if (o.sharing)
    set("scheduler.policy", caf::atom("sharing"));
}

std::int32_t index_of(const std::vector<caf::actor>& actors,
                      const caf::strong_actor_ptr& sender) {
  if (!sender)
    return -1;
  auto a = caf::actor_cast<caf::actor_addr>(sender);
  for (std::size_t c = 0; c < actors.size(); ++c)
    if (actors[c].address() == a)
      return static_cast<std::int32_t>(c);
  return -1;
}

void send_exits(caf::scoped_actor& self,
                const std::vector<caf::actor>& actors) {
  for (auto& c : actors)
    self->send_exit(c, caf::exit_reason::user_shutdown);
}

} // namespace veil::actors
