#pragma once

#include <string>

#include "actors/interfaces.hpp"

namespace caf {
class actor_system;
} // namespace caf

namespace veil::actors {

/// Spawns a party called `name`. It waits for the coordinator: load (and
/// align) its data, then the roster (its id and its peers), then, as the
/// active party (id 0), train and predict requests; as a passive party, it
/// answers the active party's protocol messages. It monitors its peers and
/// the coordinator; a failure ends it with a "veil" error naming the party
/// and the step. Byte counts per message type are kept for the report.
party_actor spawn_party(caf::actor_system& sys, std::string name);

} // namespace veil::actors
