#include "protocols/bits.hpp"

#include <array>
#include <bit>
#include <cstring>

namespace veil::protocols {

namespace {

// Byte i of unpack_table[b] is bit i of b: eight flags per packed byte.
constexpr auto unpack_table = [] {
  std::array<std::uint64_t, 256> t{};
  for (std::uint64_t b = 0; b < 256; ++b)
    for (std::uint64_t i = 0; i < 8; ++i)
      t[b] |= ((b >> i) & 1u) << (8 * i);
  return t;
}();

constexpr bool little_endian = std::endian::native == std::endian::little;

} // namespace

std::vector<std::uint8_t> pack_bits(const std::vector<std::uint8_t>& flags) {
  std::vector<std::uint8_t> out;
  append_bits(out, flags);
  return out;
}

void append_bits(std::vector<std::uint8_t>& out,
                 std::span<const std::uint8_t> flags) {
  auto base = out.size();
  auto n = flags.size();
  out.resize(base + packed_size(n), 0);
  auto* dst = out.data() + base;
  const auto* src = flags.data();
  std::size_t i = 0;
  if constexpr (little_endian) {
    constexpr std::uint64_t low7 = 0x7f7f7f7f7f7f7f7full;
    constexpr std::uint64_t ones = 0x0101010101010101ull;
    for (; i + 8 <= n; i += 8) {
      std::uint64_t x;
      std::memcpy(&x, src + i, 8);
      // Any nonzero flag byte to 1: bit 7 of each byte is set iff the byte
      // is nonzero (the sum cannot carry into the next byte).
      x = (((x & low7) + low7) | x) >> 7 & ones;
      // Byte k (0/1) lands on bit 56 + k; no two products overlap.
      dst[i / 8] = static_cast<std::uint8_t>((x * 0x0102040810204080ull) >> 56);
    }
  }
  for (; i < n; ++i)
    dst[i / 8] |=
        static_cast<std::uint8_t>((flags[i] != 0 ? 1u : 0u) << (i % 8));
}

std::vector<std::uint8_t> unpack_bits(std::span<const std::uint8_t> bits,
                                      std::size_t offset, std::size_t count) {
  std::vector<std::uint8_t> out(count);
  auto* dst = out.data();
  const auto* src = bits.data() + offset;
  std::size_t i = 0;
  if constexpr (little_endian)
    for (; i + 8 <= count; i += 8)
      std::memcpy(dst + i, &unpack_table[src[i / 8]], 8);
  for (; i < count; ++i)
    dst[i] = (src[i / 8] >> (i % 8)) & 1u;
  return out;
}

} // namespace veil::protocols
