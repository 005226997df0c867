#include "protocols/plain/wire.hpp"

#include <array>
#include <bit>
#include <cstring>

namespace veil::protocols::plain {

namespace {

template <class T>
std::size_t vec_bytes(const std::vector<T>& v) {
  return sizeof(std::uint32_t) + v.size() * sizeof(T);
}

struct sizer {
  std::size_t operator()(const setup&) const { return 8; }
  std::size_t operator()(const setup_done& m) const {
    return vec_bytes(m.bins_per_feature);
  }
  std::size_t operator()(const tree_start& m) const {
    return 4 + vec_bytes(m.grads);
  }
  std::size_t operator()(const level_request& m) const {
    std::size_t n = 9 + vec_bytes(m.build) + sizeof(std::uint32_t);
    for (const auto& s : m.splits)
      n += 12 + vec_bytes(s.goes_left_bits);
    return n;
  }
  std::size_t operator()(const histograms& m) const {
    return 8 + vec_bytes(m.nodes) + vec_bytes(m.sums);
  }
  std::size_t operator()(const split_query& m) const {
    return 8 + vec_bytes(m.nodes) + vec_bytes(m.features) + vec_bytes(m.bins) +
           vec_bytes(m.default_left);
  }
  std::size_t operator()(const split_answer& m) const {
    return 8 + vec_bytes(m.nodes) + vec_bytes(m.goes_left_bits);
  }
  std::size_t operator()(const predict_query& m) const {
    return 4 + vec_bytes(m.trees) + vec_bytes(m.nodes) + vec_bytes(m.offsets) +
           vec_bytes(m.rows);
  }
  std::size_t operator()(const predict_answer& m) const {
    return 4 + vec_bytes(m.goes_left_bits);
  }
  std::size_t operator()(const failure& m) const {
    return 8 + m.step.size() + m.reason.size();
  }
};

struct namer {
  const char* operator()(const setup&) const { return "setup"; }
  const char* operator()(const setup_done&) const { return "setup_done"; }
  const char* operator()(const tree_start&) const { return "tree_start"; }
  const char* operator()(const level_request&) const { return "level_request"; }
  const char* operator()(const histograms&) const { return "histograms"; }
  const char* operator()(const split_query&) const { return "split_query"; }
  const char* operator()(const split_answer&) const { return "split_answer"; }
  const char* operator()(const predict_query&) const { return "predict_query"; }
  const char* operator()(const predict_answer&) const {
    return "predict_answer";
  }
  const char* operator()(const failure&) const { return "failure"; }
};

} // namespace

const char* message_name(const message& m) {
  return std::visit(namer{}, m);
}

std::size_t payload_bytes(const message& m) {
  return std::visit(sizer{}, m);
}

std::vector<std::uint8_t> pack_bits(const std::vector<std::uint8_t>& flags) {
  std::vector<std::uint8_t> out;
  append_bits(out, flags);
  return out;
}

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

} // namespace veil::protocols::plain
