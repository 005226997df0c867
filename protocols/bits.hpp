#pragma once

// Wire pieces shared by every protocol: the refusal message, a message
// with its destination, 0/1 flags packed into bits (LSB first, each group
// on a byte boundary) and the payload size of a vector or string as the
// wire carries it (a 4-byte length plus a raw block).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace veil::protocols {

/// A peer refused a message: what and why (never data values). Every
/// protocol's message variant ends with it.
struct failure {
  std::string step;
  std::string reason;
};

/// A protocol message and the index of the party it goes to; a role's
/// outbox is a vector of them.
template <class Message>
struct addressed {
  std::int32_t to = 0;
  Message msg;
};

/// Packs 0/1 flags into bits, LSB first.
std::vector<std::uint8_t> pack_bits(const std::vector<std::uint8_t>& flags);
/// Appends `flags` packed to `out`, starting on a byte boundary.
void append_bits(std::vector<std::uint8_t>& out,
                 std::span<const std::uint8_t> flags);
/// Unpacks `count` flags starting at byte `offset` of `bits`.
std::vector<std::uint8_t> unpack_bits(std::span<const std::uint8_t> bits,
                                      std::size_t offset, std::size_t count);
/// Bytes that `count` packed flags occupy.
inline std::size_t packed_size(std::size_t count) {
  return (count + 7) / 8;
}

/// Payload bytes of a vector on the wire: a 4-byte length and a raw block.
template <class T>
std::size_t vec_bytes(const std::vector<T>& v) {
  return sizeof(std::uint32_t) + v.size() * sizeof(T);
}

/// Payload bytes of a string on the wire: a 4-byte length and its bytes.
inline std::size_t str_bytes(const std::string& s) {
  return sizeof(std::uint32_t) + s.size();
}

/// Payload bytes of a failure on the wire.
inline std::size_t failure_bytes(const failure& m) {
  return str_bytes(m.step) + str_bytes(m.reason);
}

} // namespace veil::protocols
