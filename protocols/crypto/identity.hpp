#pragma once

#include <array>
#include <cstdint>
#include <span>

#include "protocols/crypto/sodium.hpp"

namespace veil::protocols::crypto {

using public_key = std::array<std::uint8_t, 32>;
using signature = std::array<std::uint8_t, 64>;

/// A party's long-term Ed25519 signing identity. The public key is known
/// to the others out of band (the session configuration); the secret key is
/// wiped on destruction.
class identity {
public:
  /// A fresh key pair from the CSPRNG.
  identity();
  /// A key pair derived from a 32-byte seed (tests, reproducible runs).
  explicit identity(const key32& seed);

  const public_key& public_key_bytes() const { return pk_; }
  /// Ed25519 signature of msg: deterministic for a given key and message.
  signature sign(std::span<const std::uint8_t> msg) const;

private:
  public_key pk_{};
  secret<64> sk_;
};

/// Whether `sig` is `pk`'s signature of `msg`.
bool verify(const public_key& pk, std::span<const std::uint8_t> msg,
            const signature& sig);

} // namespace veil::protocols::crypto
