#include "protocols/crypto/identity.hpp"

#include <sodium.h>

namespace veil::protocols::crypto {

identity::identity() {
  ensure_sodium();
  crypto_sign_keypair(pk_.data(), sk_.data());
}

identity::identity(const key32& seed) {
  ensure_sodium();
  crypto_sign_seed_keypair(pk_.data(), sk_.data(), seed.data());
}

signature identity::sign(std::span<const std::uint8_t> msg) const {
  signature sig;
  crypto_sign_detached(sig.data(), nullptr, msg.data(), msg.size(), sk_.data());
  return sig;
}

bool verify(const public_key& pk, std::span<const std::uint8_t> msg,
            const signature& sig) {
  ensure_sodium();
  return crypto_sign_verify_detached(sig.data(), msg.data(), msg.size(),
                                     pk.data()) == 0;
}

} // namespace veil::protocols::crypto
