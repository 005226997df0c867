#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "protocols/crypto/sodium.hpp"

namespace veil::protocols::crypto {

/// A per-query key from a pairwise seed: crypto_kdf_derive_from_key with
/// subkey id = qid and an 8-character context naming the use (for example
/// "VeilMskG" for gradients, "VeilMskH" for hessians).
key32 derive_key(const key32& seed, std::uint64_t qid, const char (&ctx)[9]);

/// `out.size()` pseudo-random 64-bit words: the ChaCha20 keystream of `key`
/// from its 64-byte block `first_block` on (one stream call for the whole
/// vector, not a hash per value).
void expand(const key32& key, std::span<std::uint64_t> out,
            std::uint64_t first_block = 0);

/// The same keystream as bytes: `out.size()` bytes from block
/// `first_block` on.
void expand_bytes(const key32& key, std::span<unsigned char> out,
                  std::uint64_t first_block = 0);

/// One party's pairwise mask for a query (spec feverless §7.5, Alg. 5
/// l.24–25): for every peer c', +PRG(KDF(S_{c,c'}, qid)) if c > c', else
/// minus it, all mod 2^64. Summed over all parties of the session the masks
/// cancel exactly.
/// @param self      this party's index
/// @param peers     the other parties' indices
/// @param seeds     the pairwise seed with each peer (same order)
/// @param out       receives the mask, one word per value (overwritten)
void pairwise_mask(std::uint32_t self, std::span<const std::uint32_t> peers,
                   std::span<const key32> seeds, std::uint64_t qid,
                   const char (&ctx)[9], std::span<std::uint64_t> out);

} // namespace veil::protocols::crypto
