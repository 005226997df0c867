#pragma once

// What a coordinator and a node compare before a node starts a party: the
// Veil version and a fingerprint of the wire (every message type's name
// and shape), so that two builds that would misread each other's messages
// are refused at spawn, naming both, instead of failing at the first
// changed message in mid-session.

#include <string>
#include <string_view>

namespace veil::messages {

/// The program's version ("0.1.0": CMake's project version).
std::string_view veil_version();

/// 16 hex digits of BLAKE2b over every type of the `veil` type ID block in
/// order: its stable name and the bytes of its default value as CAF's
/// binary serializer writes them. An added, removed, renamed or reordered
/// type, and a field added to or removed from one, change it.
const std::string& wire_fingerprint();

/// "veil 0.1.0, wire 1a2b3c4d5e6f7a8b".
std::string handshake();

} // namespace veil::messages
