#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "protocols/crypto/identity.hpp"
#include "protocols/crypto/sodium.hpp"

namespace veil::protocols::crypto {

/// A party's one-time X25519 key for one session, and the signed message
/// that announces it (FEVERLESS Alg. 3, spec feverless §4.3: public keys
/// travel signed with the long-term identity).
class session_key {
public:
  /// A fresh key pair from the CSPRNG.
  session_key();
  /// A key pair from a seed (tests).
  explicit session_key(const key32& seed);

  const public_key& public_key_bytes() const { return pk_; }

  /// What a party signs to announce its key:
  /// "VeilKX1" || session id (8 B LE) || party index (4 B LE) || pk.
  static std::vector<std::uint8_t> announcement(std::uint64_t session,
                                                std::uint32_t party,
                                                const public_key& pk);

  /// The pairwise seed with party `peer_index` holding `peer_pk`: both
  /// sides get the same 32 bytes. The lower index takes crypto_kx's client
  /// role (spec feverless §15.1). Empty when the peer key is invalid.
  std::optional<key32> shared_seed(std::uint32_t self_index,
                                   std::uint32_t peer_index,
                                   const public_key& peer_pk) const;

private:
  public_key pk_{};
  key32 sk_;
};

} // namespace veil::protocols::crypto
