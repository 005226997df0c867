#include "protocols/crypto/key_agreement.hpp"

#include <cstring>
#include <sodium.h>

namespace veil::protocols::crypto {

static_assert(crypto_kx_PUBLICKEYBYTES == 32);
static_assert(crypto_kx_SECRETKEYBYTES == 32);
static_assert(crypto_kx_SESSIONKEYBYTES == 32);

session_key::session_key() {
  ensure_sodium();
  crypto_kx_keypair(pk_.data(), sk_.data());
}

session_key::session_key(const key32& seed) {
  ensure_sodium();
  crypto_kx_seed_keypair(pk_.data(), sk_.data(), seed.data());
}

std::vector<std::uint8_t> session_key::announcement(std::uint64_t session,
                                                    std::uint32_t party,
                                                    const public_key& pk) {
  std::vector<std::uint8_t> msg = {'V', 'e', 'i', 'l', 'K', 'X', '1'};
  for (int i = 0; i < 8; ++i)
    msg.push_back(static_cast<std::uint8_t>(session >> (8 * i)));
  for (int i = 0; i < 4; ++i)
    msg.push_back(static_cast<std::uint8_t>(party >> (8 * i)));
  msg.insert(msg.end(), pk.begin(), pk.end());
  return msg;
}

std::optional<key32> session_key::shared_seed(std::uint32_t self_index,
                                              std::uint32_t peer_index,
                                              const public_key& peer_pk) const {
  key32 rx, tx;
  int rc;
  // client.rx == server.tx: the lower index is the client, and both take
  // that key as the pair's seed.
  if (self_index < peer_index) {
    rc = crypto_kx_client_session_keys(rx.data(), tx.data(), pk_.data(),
                                       sk_.data(), peer_pk.data());
    if (rc != 0)
      return std::nullopt;
    return rx;
  }
  rc = crypto_kx_server_session_keys(rx.data(), tx.data(), pk_.data(),
                                     sk_.data(), peer_pk.data());
  if (rc != 0)
    return std::nullopt;
  return tx;
}

} // namespace veil::protocols::crypto
