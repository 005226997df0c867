#include "protocols/crypto/random.hpp"

#include <cstring>
#include <sodium.h>

namespace veil::protocols::crypto {

system_random::system_random() {
  ensure_sodium();
}

system_random::~system_random() {
  sodium_memzero(buffer_, sizeof buffer_);
}

system_random::result_type system_random::operator()() {
  if (used_ == words) {
    // A one-time key per block, so the nonce may stay zero.
    unsigned char key[crypto_stream_chacha20_KEYBYTES];
    unsigned char nonce[crypto_stream_chacha20_NONCEBYTES] = {};
    randombytes_buf(key, sizeof key);
    crypto_stream_chacha20(reinterpret_cast<unsigned char*>(buffer_),
                           sizeof buffer_, nonce, key);
    sodium_memzero(key, sizeof key);
    used_ = 0;
  }
  auto x = buffer_[used_];
  buffer_[used_++] = 0; // a drawn word is not kept around
  return x;
}

seeded_random::seeded_random(std::uint64_t seed) {
  ensure_sodium();
  std::uint8_t in[8];
  std::memcpy(in, &seed, 8);
  // Spread the 64-bit seed over a full key.
  crypto_generichash(key_.data(), key_.size(), in, sizeof in, nullptr, 0);
}

seeded_random::seeded_random(const key32& seed) : key_(seed) {
  ensure_sodium();
}

void seeded_random::refill() {
  // ChaCha20 keystream block counter as the nonce-free position.
  std::uint8_t nonce[crypto_stream_chacha20_NONCEBYTES] = {};
  std::memcpy(nonce, &block_, sizeof block_);
  ++block_;
  crypto_stream_chacha20(reinterpret_cast<unsigned char*>(buffer_),
                         sizeof buffer_, nonce, key_.data());
  used_ = 0;
}

seeded_random::result_type seeded_random::operator()() {
  if (used_ == 64)
    refill();
  return buffer_[used_++];
}

} // namespace veil::protocols::crypto
