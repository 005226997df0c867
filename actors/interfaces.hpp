#pragma once

// The typed interface of a Veil node, identical on every node (a remote
// handshake compares it signature by signature). Parties are hosted by the
// shared role host (actors/role_host.hpp) and untyped: what they accept is
// the type ID block (messages/type_ids.hpp), whose fingerprint a node
// compares at spawn.

#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/replies_to.hpp>
#include <caf/typed_actor.hpp>

#include "messages/type_ids.hpp"

namespace veil::actors {

/// A party daemon (`veil node`): on request from a coordinator it spawns a
/// party of the given name and protocol kind ("plain": a plain party,
/// "feverless": a FEVERLESS client, "opboost": an OpBoost party; see
/// the kinds its program lists, actors/node.hpp)
/// on its node and returns its handle, sent untyped. The request carries
/// the coordinator's messages::handshake() (Veil version and wire
/// fingerprint) and the names of the datasets the party will load (the
/// node's, actors/hosting.hpp); another build's is refused, naming both,
/// and so are an unknown kind, a bad party name and a dataset the node does
/// not serve. It monitors the requester and ends the parties it spawned
/// for it when the requester goes away.
using node_actor = caf::typed_actor<
    caf::replies_to<messages::spawn_atom, std::string, std::string, std::string,
                    std::vector<std::string>>::with<caf::actor>>;

} // namespace veil::actors
