#include "protocols/crypto/hash_chain.hpp"

#include <algorithm>
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
  if (chunk_at_.empty())
    chunk_at_.assign((tickets_ + chunk - 1) / chunk, 0);
  auto c = i / chunk;
  if (chunk_at_[c] == 0) {
    // ChaCha20 blocks are 64 bytes, 8 tickets: chunk c starts block
    // c * chunk / 8.
    auto at = kept_.size();
    kept_.resize(at + chunk);
    auto out = std::span(kept_.data() + at, chunk);
    expand(key_, out, c * chunk / 8);
    for (auto& t : out)
      t = le64(t);
    chunk_at_[c] = static_cast<std::uint32_t>(at / chunk + 1);
  }
  return kept_[(chunk_at_[c] - 1) * chunk + i % chunk];
}

std::vector<std::uint64_t> ticket_stream::range(std::size_t from,
                                                std::size_t count) const {
  std::vector<std::uint64_t> out(count);
  fill(from, out);
  return out;
}

void ticket_stream::fill(std::size_t from, std::span<std::uint64_t> out) const {
  // 8 tickets a 64-byte block: a partial first block through a buffer, the
  // rest straight into out.
  std::size_t done = 0;
  if (auto skip = from % 8; skip != 0 && !out.empty()) {
    std::uint64_t block[8];
    expand(key_, block, from / 8);
    done = std::min<std::size_t>(8 - skip, out.size());
    std::copy_n(block + skip, done, out.begin());
  }
  if (done < out.size())
    expand(key_, out.subspan(done), (from + done) / 8);
  for (auto& t : out)
    t = le64(t);
}

void ticket_stream::bytes(std::uint64_t first_block,
                          std::span<unsigned char> out) const {
  expand_bytes(key_, out, first_block);
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

void attempt_tickets::reset(const key32& joint, const round_input& in,
                            std::size_t units, std::size_t slots,
                            std::size_t skip_first, std::size_t skip_count) {
  joint_ = joint;
  in_ = in;
  in_.attempt = 0;
  units_ = units;
  slots_ = slots;
  skip_first_ = std::min(skip_first, units);
  skip_count_ = std::min(skip_count, units - skip_first_);
  later_.clear();
  // group * units * slots tickets, 32 to a 64-byte block.
  auto count = units * slots * group;
  auto room = (count + 31) / 32 * 32;
  if (room > room_) {
    first_ = std::make_unique_for_overwrite<std::uint16_t[]>(room);
    room_ = room;
  }
  ticket_stream stream(joint_, in_);
  compute_first(stream, 0, skip_first_);
  compute_first(stream, skip_first_ + skip_count_, units_);
}

void attempt_tickets::compute_first(const ticket_stream& stream, std::size_t lo,
                                    std::size_t hi) {
  if (lo >= hi)
    return;
  // Units lo .. hi - 1 are tickets per_unit lo .. per_unit hi - 1, bytes
  // twice that: the blocks that hold them, whole (room_ has space for the
  // last).
  auto per_unit = group * slots_;
  auto block_lo = 2 * per_unit * lo / 64;
  auto block_hi = (2 * per_unit * hi + 63) / 64;
  auto* bytes = reinterpret_cast<unsigned char*>(first_.get());
  stream.bytes(block_lo, {bytes + 64 * block_lo, 64 * (block_hi - block_lo)});
  if constexpr (std::endian::native != std::endian::little) {
    // A word's lanes, lowest bits first, are its 16-bit halves in
    // little-endian order.
    for (auto t = 32 * block_lo; t < 32 * block_hi; ++t) {
      auto* b = bytes + 2 * t;
      first_[t] = static_cast<std::uint16_t>(b[0] | b[1] << 8);
    }
  }
}

void attempt_tickets::out_of_range(std::size_t unit) const {
  throw std::out_of_range(
      "unit " + std::to_string(unit) + " among " + std::to_string(units_) +
      (unit < units_ ? " was skipped: its tickets were not computed" : ""));
}

std::uint16_t attempt_tickets::later(std::size_t unit, std::uint32_t attempt,
                                     std::size_t slot) {
  if (unit < units_ && skipped(unit))
    out_of_range(unit);
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
