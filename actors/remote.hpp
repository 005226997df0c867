#pragma once

// What the sessions whose parties may live on other nodes share: an actor
// system that talks to other nodes, the kinds of party a node can host, and
// starting a session's parties (here or on their `veil node`s).

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/expected.hpp>
#include <caf/fwd.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/session.hpp"

namespace veil::actors {

class tunnel;

/// An actor system that talks to other nodes: Veil's types, the middleman
/// and, with certificates, the OpenSSL manager (with a CA, peers are
/// verified and a wrong one is refused).
struct net_config : caf::actor_system_config {
  net_config(int threads, const tls_files& tls);
};

/// The node actor `veil node` publishes (serve_node), spawned in `sys`,
/// hosting parties of `kinds` that load the datasets of `catalog`; `once`:
/// it ends after its first session.
caf::actor spawn_node(caf::actor_system& sys, bool once,
                      std::vector<party_kind> kinds, node_catalog catalog);

/// Why starting the parties failed.
struct spawn_failure {
  protocols::session::errc code = protocols::session::errc::none;
  std::string error;
};

/// Starts one party of `kind` per spec, in order: a local one in
/// `sys`, a remote one by its node (connected over TLS when `tls` is
/// enabled; each node once, through a tunnel added to `tunnels`, which
/// must outlive the connections), with `self` as the requester the nodes
/// monitor. On failure the parties started so far are ended and the error
/// names the party and its node's address.
std::optional<spawn_failure>
spawn_parties(caf::actor_system& sys, caf::scoped_actor& self,
              const std::vector<party_spec>& specs, const tls_files& tls,
              std::chrono::milliseconds timeout, const party_kind& kind,
              std::vector<caf::actor>& out,
              std::vector<std::unique_ptr<tunnel>>& tunnels);

} // namespace veil::actors
