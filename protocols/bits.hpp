#pragma once

// Wire pieces shared by every protocol: the refusal message, a message
// with its destination, and 0/1 flags packed into bits (LSB first, each
// group on a byte boundary). What a message costs on the wire is measured
// from its inspect() (messages/wire_size.hpp), not computed here.

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

} // namespace veil::protocols
