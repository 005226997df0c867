#include "protocols/crypto/hash_chain.hpp"

#include <cstring>
#include <sodium.h>
#include <stdexcept>

namespace veil::protocols::crypto {

namespace {

/// Domain keys: a chain step and a ticket key are never the same hash.
constexpr unsigned char step_key[32] = "veil.hash_chain.step";
constexpr unsigned char ticket_key[32] = "veil.hash_chain.tickets";

} // namespace

key32 chain_step(const key32& x) {
  ensure_sodium();
  key32 out;
  crypto_generichash(out.data(), out.size(), x.data(), x.size(), step_key,
                     sizeof step_key);
  return out;
}

hash_chain::hash_chain(const key32& seed, std::uint64_t length)
    : length_(length) {
  if (length == 0)
    throw std::invalid_argument("hash_chain: length 0");
  checkpoints_.resize((length + span - 1) / span);
  auto x = chain_step(seed); // x_length
  for (auto k = length; k >= 1; --k) {
    if (k % span == 0 || k == length)
      checkpoints_[(k - 1) / span] = x;
    x = chain_step(x); // x_{k-1}
  }
  tip_ = x;
}

key32 hash_chain::element(std::uint64_t k) {
  if (k == 0 || k > length_)
    throw std::out_of_range("hash_chain: element " + std::to_string(k) +
                            " of a chain of " + std::to_string(length_));
  auto base = (k - 1) / span * span;
  if (segment_.empty() || base != base_) {
    // The segment's top is a checkpoint; hash down to its bottom.
    auto top = std::min(base + span, length_);
    segment_.assign(top - base, key32{});
    auto x = checkpoints_[(k - 1) / span];
    for (auto j = top; j > base; --j) {
      segment_[j - base - 1] = x;
      if (j > base + 1)
        x = chain_step(x);
    }
    base_ = base;
  }
  return segment_[k - base - 1];
}

chain_verifier::chain_verifier(const key32& tip, std::uint64_t length)
    : length_(length), at_(tip) {}

bool chain_verifier::accept(std::uint64_t k, const key32& x) {
  if (k == 0 || k > length_)
    return false;
  if (k <= known_) {
    auto y = at_;
    for (auto j = known_; j > k; --j)
      y = chain_step(y);
    return y == x;
  }
  auto y = x;
  for (auto j = k; j > known_; --j)
    y = chain_step(y);
  if (!(y == at_))
    return false;
  known_ = k;
  at_ = x;
  return true;
}

std::vector<score> chain_tickets(const key32& element, const round_input& in,
                                 std::size_t count) {
  ensure_sodium();
  unsigned char msg[1 + 4 + 32];
  msg[0] = in.tag;
  for (int i = 0; i < 4; ++i)
    msg[1 + i] = static_cast<unsigned char>(in.attempt >> (8 * i));
  std::memcpy(msg + 5, in.digest.data(), 32);
  // The element keys the hash (libsodium takes at most 64 key bytes): the
  // round key, then the ticket stream under it.
  unsigned char key_in[64];
  std::memcpy(key_in, ticket_key, 32);
  std::memcpy(key_in + 32, element.data(), 32);
  key32 round_key;
  crypto_generichash(round_key.data(), round_key.size(), msg, sizeof msg,
                     key_in, sizeof key_in);
  sodium_memzero(key_in, sizeof key_in);
  std::vector<score> out(count);
  if (count == 0)
    return out;
  std::uint8_t nonce[crypto_stream_chacha20_NONCEBYTES] = {};
  crypto_stream_chacha20(out.front().data(), count * sizeof(score), nonce,
                         round_key.data());
  return out;
}

} // namespace veil::protocols::crypto
