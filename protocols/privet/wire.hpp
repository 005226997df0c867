#pragma once

// Privet's messages (spec privet §4–5): the parties' rounds of the MPC
// runtime, and the dealer's seeds and corrections. Plain structs, no CAF.
// Parties are 0..n−1 (party 0 holds the labels; the last asks the dealer
// for corrections); the dealer is n.

#include <cstdint>
#include <variant>
#include <vector>

#include "protocols/bits.hpp"

namespace veil::protocols::privet {

using party_id = std::int32_t;

/// Party to party: this party's words of exchange `round` for the
/// receiver (every opening, every share; possibly none: the receiver
/// waits for every peer's message of each round).
struct round_words {
  std::uint64_t round = 0;
  std::vector<std::uint64_t> words;
};

/// Dealer to party, once: the 32-byte seed the party expands its
/// correlated randomness from. Secret: never logged.
struct dealer_seed {
  std::vector<std::uint8_t> seed;
};

/// Last party to dealer: the corrections of one call (mpc::
/// correlation_request).
struct correlation_ask {
  std::uint8_t kind = 0;
  std::uint64_t call = 0;
  std::uint64_t count = 0;
  std::int32_t owner = -1;
  std::uint64_t length = 0;
  std::int32_t bits = 0;
  /// A cross product's operands (2 to 4), five words each (kind, call,
  /// count, bits, part); empty otherwise.
  std::vector<std::uint64_t> operands;
};

/// Dealer to last party: the answer to the ask of the same call and kind.
struct correlation_answer {
  std::uint8_t kind = 0;
  std::uint64_t call = 0;
  std::vector<std::uint64_t> words;
};

using protocols::failure;

using message = std::variant<round_words, dealer_seed, correlation_ask,
                             correlation_answer, failure>;
using envelope = addressed<message>;
using outbox = std::vector<envelope>;

const char* message_name(const message& m);

} // namespace veil::protocols::privet
