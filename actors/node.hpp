#pragma once

// `veil node`: a party daemon. It publishes a node_actor (see
// interfaces.hpp) through CAF's middleman, optionally over TLS; a
// coordinator connects to it and has it spawn the session's party that
// lives on this machine. CAF-free, so that apps/ compiles without CAF.

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "actors/front_door.hpp"
#include "actors/session.hpp"

namespace veil::actors {

struct node_options {
  /// The address to listen on ("127.0.0.1", "0.0.0.0", "::1").
  std::string host = "127.0.0.1";
  /// 0 = any free port (the one taken is printed).
  std::uint16_t port = 0;
  /// Exit after one session instead of serving sessions until stopped.
  bool once = false;
  /// TLS with certificates: all three files, or none (plain TCP).
  tls_files tls;
  /// Scheduler threads; 0 = one per core.
  int threads = 0;
  /// The kinds of party it hosts (a spawn request for another is refused,
  /// naming these).
  std::vector<party_kind> kinds;
  /// The datasets its parties may load and the folder they keep model
  /// parts in.
  node_catalog catalog;
  /// The coordinators' certificates it accepts (front_door.hpp's allowed());
  /// empty: any the CA signed.
  std::vector<std::string> allow;
  /// Connections, handshake time and frame sizes it accepts.
  frame_limits limits;
};

/// Publishes the node and serves sessions until --once is done or the
/// process gets SIGINT or SIGTERM. Prints "listening on HOST:PORT" (the
/// real port) to `out` once it accepts connections. Returns the exit code
/// (0, or 1 when it cannot listen: the reason goes to `err`).
int serve_node(const node_options& opts, std::ostream& out, std::ostream& err);

} // namespace veil::actors
