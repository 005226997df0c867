#include "protocols/crypto/hash_chain.hpp"

#include <bit>
#include <cstring>
#include <sodium.h>
#include <stdexcept>
#include <string>

#include "protocols/crypto/masks.hpp"

namespace veil::protocols::crypto {

namespace {

/// Domain keys: a chain step, a ticket key and a joint element are never
/// the same hash.
constexpr unsigned char step_key[32] = "veil.hash_chain.step";
constexpr unsigned char ticket_key[32] = "veil.hash_chain.tickets";
constexpr unsigned char joint_key[32] = "veil.hash_chain.joint";

/// The little-endian word whose bytes `w` holds in memory.
std::uint64_t le64(std::uint64_t w) {
  if constexpr (std::endian::native == std::endian::little)
    return w;
  std::uint64_t out = 0;
  auto* b = reinterpret_cast<const unsigned char*>(&w);
  for (int i = 7; i >= 0; --i)
    out = (out << 8) | b[i];
  return out;
}

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

ticket_stream::ticket_stream(const key32& element, const round_input& in,
                             std::size_t tickets)
    : tickets_(tickets) {
  ensure_sodium();
  unsigned char msg[1 + 4 + 32];
  msg[0] = in.tag;
  for (int i = 0; i < 4; ++i)
    msg[1 + i] = static_cast<unsigned char>(in.attempt >> (8 * i));
  std::memcpy(msg + 5, in.digest.data(), 32);
  // The domain key and the element key the hash (libsodium takes at most
  // 64 key bytes).
  unsigned char key_in[64];
  std::memcpy(key_in, ticket_key, 32);
  std::memcpy(key_in + 32, element.data(), 32);
  crypto_generichash(key_.data(), key_.size(), msg, sizeof msg, key_in,
                     sizeof key_in);
  sodium_memzero(key_in, sizeof key_in);
}

std::uint64_t ticket_stream::at(std::size_t i) {
  if (i >= tickets_)
    throw std::out_of_range("ticket " + std::to_string(i) + " of a stream of " +
                            std::to_string(tickets_));
  if (!cache_) {
    auto chunks = (tickets_ + chunk - 1) / chunk;
    cache_ = std::make_unique_for_overwrite<std::uint64_t[]>(chunks * chunk);
    filled_.assign(chunks, false);
  }
  auto c = i / chunk;
  if (!filled_[c]) {
    // ChaCha20 blocks are 64 bytes, 8 tickets: chunk c starts block
    // c * chunk / 8.
    auto out = std::span(cache_.get() + c * chunk, chunk);
    expand(key_, out, c * chunk / 8);
    for (auto& t : out)
      t = le64(t);
    filled_[c] = true;
  }
  return cache_[i];
}

std::vector<std::uint64_t> ticket_stream::range(std::size_t from,
                                                std::size_t count) const {
  // From the 64-byte block that holds ticket `from`, 8 tickets a block.
  auto skip = from % 8;
  std::vector<std::uint64_t> out(skip + count);
  expand(key_, out, from / 8);
  out.erase(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(skip));
  for (auto& t : out)
    t = le64(t);
  return out;
}

key32 joint_element(std::span<const key32> elements) {
  crypto_generichash_state st;
  crypto_generichash_init(&st, joint_key, sizeof joint_key, 32);
  for (const auto& x : elements)
    crypto_generichash_update(&st, x.data(), x.size());
  key32 out;
  crypto_generichash_final(&st, out.data(), out.size());
  return out;
}

attempt_tickets::attempt_tickets(const key32& joint, const round_input& in,
                                 std::size_t units, std::size_t slots)
    : joint_(joint), in_(in), units_(units), slots_(slots) {
  in_.attempt = 0;
  // group * units * slots tickets, four to a word, taken out of their
  // words once so that a unit's lie together as 16-bit values.
  auto count = units * slots * group;
  auto words = ticket_stream(joint_, in_).first((count + 3) / 4);
  first_.resize(count);
  if constexpr (std::endian::native == std::endian::little) {
    // A word's lanes, lowest bits first, are its 16-bit halves in memory
    // order.
    std::memcpy(first_.data(), words.data(), count * sizeof(std::uint16_t));
  } else {
    for (std::size_t t = 0; t < count; ++t)
      first_[t] = lane(words[t / 4], t);
  }
}

void attempt_tickets::out_of_range(std::size_t unit) const {
  throw std::out_of_range("unit " + std::to_string(unit) + " among " +
                          std::to_string(units_));
}

std::uint16_t attempt_tickets::later(std::size_t unit, std::uint32_t attempt,
                                     std::size_t slot) {
  if (unit >= units_ || slot >= slots_)
    throw std::out_of_range("slot " + std::to_string(slot) + " of unit " +
                            std::to_string(unit) + " among " +
                            std::to_string(units_) + " units of " +
                            std::to_string(slots_) + " slots");
  auto g = attempt / group;
  while (later_.size() < g) {
    auto in = in_;
    in.attempt = group * static_cast<std::uint32_t>(later_.size() + 1);
    later_.emplace_back(joint_, in, (units_ * slots_ * group + 3) / 4);
  }
  auto t = index(unit, attempt, slot);
  return lane(later_[g - 1].at(t / 4), t);
}

score as_score(std::uint64_t ticket) {
  score s{};
  for (int b = 0; b < 8; ++b)
    s[static_cast<std::size_t>(b)] =
        static_cast<std::uint8_t>(ticket >> (56 - 8 * b));
  return s;
}

} // namespace veil::protocols::crypto
