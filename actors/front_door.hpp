#pragma once

// The network edge of a node and of a coordinator. CAF's middleman speaks
// BASP on 127.0.0.1 only; what crosses machines goes through these relays,
// which Veil owns:
//
// - front_door (a node): listens on the node's address, terminates TLS
//   (the coordinator's certificate must be signed by the CA and, with an
//   allow list, be one of those allowed), bounds the connections, the time
//   to the BASP handshake and every frame's declared size before CAF reads
//   it (CAF allocates a frame's declared size at once), logs each
//   connection with its certificate, then relays to the middleman.
// - tunnel (a coordinator): a local port CAF connects to, relayed to one
//   node, over TLS that checks the node's certificate and its host name,
//   with the same bounds on what the node sends back.
//
// Without certificates both relay plain TCP, with the same bounds. A side
// that ends what it sends ends that direction only, once every byte read
// from it has been delivered (a half-close); the other direction goes on.

#include <atomic>
#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "actors/session.hpp"

namespace veil::actors {

/// What a relay lets through.
struct frame_limits {
  /// Open connections at once; more are closed at once, logged.
  std::size_t max_connections = 64;
  /// From the connection to the end of the BASP handshake (TLS included).
  std::chrono::milliseconds handshake_timeout{10000};
  /// The first frame, the BASP handshake: its payload's declared size.
  std::uint32_t max_handshake_bytes = 64 * 1024;
  /// Any later frame's declared payload size.
  std::uint32_t max_frame_bytes = 256u << 20;
  /// Once one side has ended what it sends (or failed), how long no byte
  /// may move before the relay closes the connection (a peer that never
  /// closes its side, or never reads what is left for it).
  std::chrono::milliseconds half_closed_idle{30000};
};

/// A certificate as it identifies a peer: its subject ("CN=shop,O=...",
/// RFC 2253, for the log), the values of its subject's common names, and
/// "sha256:" with the hexadecimal SHA-256 of its DER encoding.
struct peer_certificate {
  std::string subject;
  std::vector<std::string> common_names;
  std::string fingerprint;
};

/// Whether `allow` admits `cert`: "sha256:HEX" its fingerprint, "CN=NAME"
/// one of its common names, exactly (never a match inside the subject's
/// text, where an escaped comma could forge a boundary); an empty list
/// admits every certificate.
bool allowed(const std::vector<std::string>& allow,
             const peer_certificate& cert);

/// A node's listening edge. Throws input_error if it cannot listen or its
/// TLS files do not load.
class front_door {
public:
  struct options {
    std::string host;
    std::uint16_t port = 0;
    /// The middleman's port on 127.0.0.1.
    std::uint16_t inner_port = 0;
    tls_files tls;
    /// Coordinators allowed (see allowed()); empty: any the CA signed.
    std::vector<std::string> allow;
    frame_limits limits;
  };

  front_door(options opts, std::ostream& log);
  ~front_door();
  front_door(const front_door&) = delete;
  front_door& operator=(const front_door&) = delete;

  /// The port it listens on (the one taken, if 0 was asked).
  std::uint16_t port() const;

  struct impl;

private:
  std::unique_ptr<impl> impl_;
};

/// A coordinator's relay to the node at host:port. Throws input_error if
/// its TLS files do not load or it cannot listen locally; connection
/// failures (a wrong certificate, another host name) reach CAF as a closed
/// connection and are kept in error().
class tunnel {
public:
  tunnel(std::string host, std::uint16_t port, const tls_files& tls,
         frame_limits limits = {});
  ~tunnel();
  tunnel(const tunnel&) = delete;
  tunnel& operator=(const tunnel&) = delete;

  /// The port on 127.0.0.1 to connect to instead of the node.
  std::uint16_t local_port() const;
  /// Why the relay to the node failed; empty while it has not.
  std::string error() const;

  struct impl;

private:
  std::unique_ptr<impl> impl_;
};

} // namespace veil::actors
