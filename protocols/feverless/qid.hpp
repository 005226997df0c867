#pragma once

// Query identifiers (spec feverless §7.1): one 64-bit id per aggregation,
// unique over the session and known to every client, packed from the
// query's coordinates:
//
//   bits 63..48  tree    (16 bits: trees   <= 65536)
//   bits 47..40  source  ( 8 bits: clients <= 256)
//   bits 39..20  node    (20 bits: node ids < 2^20, i.e. max_depth <= 19)
//   bits 19..8   feature (12 bits: a source's features <= 4096)
//   bits  7..0   bucket  ( 8 bits: buckets <= 256)
//
// [D] The packed tuple is the "(tree, node, source, feature, bucket)" form
// of §7.1. Source sits above node so that the canonical query order of a
// level (by source, then node, feature, bucket) is ascending in qid.
// Every field is range-checked when packing; the session parameters are
// checked once so that no legal query can fail. No attempt field: a qid
// is never reused because a query is never retried (a missing message
// ends the session; why not the RETRY of §10.4: client.hpp).
// The redo of the noise-injection step (Alg. 5 l.16–17) re-signs with an
// attempt counter in the lottery input instead, and uses the same masks
// once.

#include <cstdint>
#include <optional>

namespace veil::protocols::feverless {

struct query_coords {
  std::uint32_t tree = 0;
  std::uint32_t source = 0;
  std::uint32_t node = 0;
  std::uint32_t feature = 0;
  std::uint32_t bucket = 0;

  friend bool operator==(const query_coords&, const query_coords&) = default;
};

inline constexpr std::uint32_t max_qid_trees = 1u << 16;
inline constexpr std::uint32_t max_qid_sources = 1u << 8;
inline constexpr std::uint32_t max_qid_nodes = 1u << 20;
inline constexpr std::uint32_t max_qid_features = 1u << 12;
inline constexpr std::uint32_t max_qid_buckets = 1u << 8;

/// The qid of a query; empty when a field does not fit its bits.
inline std::optional<std::uint64_t> pack_qid(const query_coords& c) {
  if (c.tree >= max_qid_trees || c.source >= max_qid_sources ||
      c.node >= max_qid_nodes || c.feature >= max_qid_features ||
      c.bucket >= max_qid_buckets)
    return std::nullopt;
  return (std::uint64_t{c.tree} << 48) | (std::uint64_t{c.source} << 40) |
         (std::uint64_t{c.node} << 20) | (std::uint64_t{c.feature} << 8) |
         std::uint64_t{c.bucket};
}

inline query_coords unpack_qid(std::uint64_t q) {
  query_coords c;
  c.tree = static_cast<std::uint32_t>(q >> 48);
  c.source = static_cast<std::uint32_t>((q >> 40) & 0xFF);
  c.node = static_cast<std::uint32_t>((q >> 20) & 0xFFFFF);
  c.feature = static_cast<std::uint32_t>((q >> 8) & 0xFFF);
  c.bucket = static_cast<std::uint32_t>(q & 0xFF);
  return c;
}

} // namespace veil::protocols::feverless
