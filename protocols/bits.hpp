#pragma once

// Wire helpers shared by every protocol: 0/1 flags packed into bits (LSB
// first, each group on a byte boundary) and the payload size of a vector
// or string as the wire carries it (a 4-byte length plus a raw block).

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace veil::protocols {

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

} // namespace veil::protocols
