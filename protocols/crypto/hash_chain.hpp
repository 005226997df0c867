#pragma once

// The hash-chain lottery (docs/feverless-election.md): a party commits once,
// with one signature at session start, to the tip of a hash chain, and
// reveals one element per lottery round. Anyone checks an element with a
// few hashes against the commitment (or the last element it checked);
// nobody can compute an element before its owner reveals it (a preimage of
// what is known), and the owner cannot change an element after committing.
// The round's tickets come from the joint element of every party's reveal
// (joint_element): it keys ChaCha20 streams of 64-bit words, one per
// election unit (ticket_stream), or of 16-bit attempt tickets, four to a
// word (attempt_tickets).

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "protocols/crypto/lottery.hpp"
#include "protocols/crypto/sodium.hpp"

namespace veil::protocols::crypto {

/// BLAKE2b-256 of `x` under the chain's domain key: one step down a chain.
key32 chain_step(const key32& x);

/// A party's own chain of `length` elements: x_length = chain_step(seed),
/// x_{k-1} = chain_step(x_k), and x_0 = tip() is what the party commits to.
/// Element k is revealed in round k (1 <= k <= length), so that revealing
/// it shows every earlier element and no later one. Keeps one element in
/// 1,024 and the segment in use (memory ~ length / 32 bytes + 32 KiB);
/// elements asked for in ascending order cost two hashes each.
class hash_chain {
public:
  hash_chain(const key32& seed, std::uint64_t length);

  const key32& tip() const { return tip_; }
  std::uint64_t length() const { return length_; }
  /// x_k; throws std::out_of_range unless 1 <= k <= length.
  key32 element(std::uint64_t k);

private:
  static constexpr std::uint64_t span = 1024;
  std::uint64_t length_;
  key32 tip_;
  /// checkpoints_[j] = x_{min(span (j + 1), length)}.
  std::vector<key32> checkpoints_;
  /// x_{base + 1} .. x_{base + span}, or empty.
  std::uint64_t base_ = 0;
  std::vector<key32> segment_;
};

/// What one party knows of another's chain: its committed tip and the
/// highest element checked so far.
class chain_verifier {
public:
  chain_verifier() = default;
  chain_verifier(const key32& tip, std::uint64_t length);

  /// Whether `x` is the chain's element k: hashing it down reaches the
  /// highest known element (k above it: that many hashes), or hashing the
  /// highest known one down reaches it (k at or below). An element of a
  /// round beyond the chain's length is refused.
  bool accept(std::uint64_t k, const key32& x);

private:
  std::uint64_t length_ = 0;
  std::uint64_t known_ = 0; ///< index of `at_`
  key32 at_;
};

/// The domain of a round's tickets: its tag (what the lottery elects), the
/// attempt, and a digest of the round's inputs.
struct round_input {
  std::uint8_t tag = 0;
  std::uint32_t attempt = 0;
  std::array<std::uint8_t, 32> digest{};
};

/// A round's tickets under an element (a joint element, in the election):
/// the 64-bit words (little-endian) of the ChaCha20 stream keyed by
/// BLAKE2b-256 of (tag, attempt, digest) under the element. Ticket i is
/// election unit i's; every party that holds the element computes the
/// same.
class ticket_stream {
public:
  /// `tickets` bounds what `at` may read. A stream may be read sparsely
  /// (the units that reach a later group of attempts, 1 in 81), so only
  /// the chunks read are kept, one after another: a cache as long as the
  /// stream took a fresh page, and its fault, for almost every chunk
  /// computed.
  ticket_stream(const key32& element, const round_input& in,
                std::size_t tickets = 0);
  /// Ticket i < tickets: computed with its 63 neighbours (8 ChaCha20
  /// blocks) and kept with every chunk computed before, so that reading
  /// tickets in any order, and again, costs each chunk once.
  std::uint64_t at(std::size_t i);
  /// Tickets 0 .. count - 1, in one stream call.
  std::vector<std::uint64_t> first(std::size_t count) const {
    return range(0, count);
  }
  /// Tickets from .. from + count - 1, in one stream call.
  std::vector<std::uint64_t> range(std::size_t from, std::size_t count) const;
  /// The same into `out` (tickets from .. from + out.size() - 1).
  void fill(std::size_t from, std::span<std::uint64_t> out) const;
  /// The stream's bytes from 64-byte block `first_block` on (16-bit
  /// tickets: ticket i of the 16-bit lanes is bytes 2i, 2i + 1, lowest
  /// first).
  void bytes(std::uint64_t first_block, std::span<unsigned char> out) const;

private:
  static constexpr std::size_t chunk = 64;
  key32 key_;
  std::size_t tickets_ = 0;
  /// Per chunk of the stream: 0, or 1 + its place among kept_'s chunks.
  std::vector<std::uint32_t> chunk_at_;
  std::vector<std::uint64_t> kept_; ///< the chunks computed, in read order
};

/// A round's joint element: BLAKE2b-256, under its own domain key, of every
/// party's element of the round, in party order. Nobody can compute it
/// before the last party reveals (each element is a preimage of what is
/// known), and no party can steer it: each element is fixed by its
/// commitment, whoever reveals last.
key32 joint_element(std::span<const key32> elements);

/// The 16-bit tickets of a round's attempts, from one stream under a joint
/// element: per unit, attempt and slot (`slots` per unit and attempt; the
/// election puts the leader's threshold in slot 0 and each candidate's
/// NOISE ticket after it). Attempts go in groups of four, each group its
/// own stream (round_input::attempt is the group's first attempt), and a
/// unit's four attempts of a group lie together: in group g, unit u's
/// ticket of attempt 4 g + d and slot j is ticket (4 u + d) slots + j of
/// the group's stream, four to a 64-bit word, lowest bits first. Group 0
/// (attempts 0 to 3, all that most units read) is computed at once,
/// straight into 16-bit tickets in that order (a unit's are one row:
/// first_group); later groups by 64-word chunks at their first read, since
/// few units reach them. A run of units its reader never reads (a client's
/// own units, which it neither leads nor volunteers for) can be skipped:
/// group 0 is then two stream calls, one on each side, their tickets are
/// not computed, and reading them throws.
class attempt_tickets {
public:
  static constexpr std::uint32_t group = 4;
  /// No units (reset() gives it some).
  attempt_tickets() = default;
  /// Every unit but units skip_first .. skip_first + skip_count - 1.
  attempt_tickets(const key32& joint, const round_input& in, std::size_t units,
                  std::size_t slots, std::size_t skip_first = 0,
                  std::size_t skip_count = 0) {
    reset(joint, in, units, slots, skip_first, skip_count);
  }
  /// As the constructor, reusing the memory of the tickets before (a level
  /// after another: fresh pages cost more than the stream).
  void reset(const key32& joint, const round_input& in, std::size_t units,
             std::size_t slots, std::size_t skip_first = 0,
             std::size_t skip_count = 0);
  /// The ticket of `unit` at `attempt` in `slot`. Throws std::out_of_range
  /// for a unit or slot out of range, or a skipped unit.
  std::uint16_t at(std::size_t unit, std::uint32_t attempt, std::size_t slot) {
    if (attempt < group && unit < units_ && slot < slots_ && !skipped(unit))
      return first_[index(unit, attempt, slot)];
    return later(unit, attempt, slot);
  }
  /// `unit`'s tickets of attempts 0 .. group - 1, all slots, in the order
  /// of at(unit, a, slot) by a then slot (group × slots of them), where
  /// `at` finds each ticket's place anew. Throws std::out_of_range for a
  /// unit out of range or skipped.
  std::span<const std::uint16_t> first_group(std::size_t unit) const {
    if (unit >= units_ || skipped(unit))
      out_of_range(unit);
    return {first_.get() + index(unit, 0, 0), group * slots_};
  }

private:
  /// The ticket's place in its group's stream, and its 16 bits of the word.
  std::size_t index(std::size_t unit, std::uint32_t attempt,
                    std::size_t slot) const {
    return (group * unit + attempt % group) * slots_ + slot;
  }
  bool skipped(std::size_t unit) const {
    return unit - skip_first_ < skip_count_; // unsigned: below wraps high
  }
  static std::uint16_t lane(std::uint64_t word, std::size_t t) {
    return static_cast<std::uint16_t>(word >> (16 * (t % 4)));
  }
  /// Group 0's tickets of units lo .. hi - 1 (with their blocks'
  /// neighbours).
  void compute_first(const ticket_stream& stream, std::size_t lo,
                     std::size_t hi);
  std::uint16_t later(std::size_t unit, std::uint32_t attempt,
                      std::size_t slot);
  [[noreturn]] void out_of_range(std::size_t unit) const;
  key32 joint_{};
  round_input in_;
  std::size_t units_ = 0, slots_ = 0;
  std::size_t skip_first_ = 0, skip_count_ = 0;
  /// Group 0's tickets in order, room for whole 64-byte blocks.
  std::unique_ptr<std::uint16_t[]> first_;
  std::size_t room_ = 0;
  std::vector<ticket_stream> later_; ///< groups 1, 2, ...: made at need
};

/// A 64-bit ticket as a lottery score (its big-endian bytes first, zeros
/// after): scores compare as the tickets do.
score as_score(std::uint64_t ticket);

} // namespace veil::protocols::crypto
