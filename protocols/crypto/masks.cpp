#include "protocols/crypto/masks.hpp"

#include <algorithm>
#include <sodium.h>
#include <stdexcept>

namespace veil::protocols::crypto {

static_assert(crypto_kdf_KEYBYTES == 32);
static_assert(crypto_kdf_CONTEXTBYTES == 8);

key32 derive_key(const key32& seed, std::uint64_t qid, const char (&ctx)[9]) {
  ensure_sodium();
  key32 out;
  crypto_kdf_derive_from_key(out.data(), out.size(), qid, ctx, seed.data());
  return out;
}

void expand(const key32& key, std::span<std::uint64_t> out,
            std::uint64_t first_block) {
  expand_bytes(key,
               {reinterpret_cast<unsigned char*>(out.data()),
                out.size() * sizeof(std::uint64_t)},
               first_block);
}

void expand_bytes(const key32& key, std::span<unsigned char> out,
                  std::uint64_t first_block) {
  ensure_sodium();
  std::fill(out.begin(), out.end(), 0);
  // A fresh key per query makes a fixed nonce safe.
  std::uint8_t nonce[crypto_stream_chacha20_NONCEBYTES] = {};
  crypto_stream_chacha20_xor_ic(out.data(), out.data(), out.size(), nonce,
                                first_block, key.data());
}

void pairwise_mask(std::uint32_t self, std::span<const std::uint32_t> peers,
                   std::span<const key32> seeds, std::uint64_t qid,
                   const char (&ctx)[9], std::span<std::uint64_t> out) {
  if (peers.size() != seeds.size())
    throw std::invalid_argument("pairwise_mask: one seed per peer");
  std::fill(out.begin(), out.end(), 0);
  std::vector<std::uint64_t> stream(out.size());
  for (std::size_t k = 0; k < peers.size(); ++k) {
    if (peers[k] == self)
      throw std::invalid_argument("pairwise_mask: a party is not its own peer");
    expand(derive_key(seeds[k], qid, ctx), stream);
    // Unsigned arithmetic wraps mod 2^64: + for the higher index, - for
    // the lower, so the pair's terms cancel in the sum.
    if (self > peers[k])
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] += stream[i];
    else
      for (std::size_t i = 0; i < out.size(); ++i)
        out[i] -= stream[i];
  }
}

} // namespace veil::protocols::crypto
