#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "protocols/crypto/identity.hpp"

namespace veil::protocols::crypto {

using score = std::array<std::uint8_t, 32>;

/// The noise-leader lottery of FEVERLESS (Alg. 4, spec feverless §7.3,
/// §15.1): a party's score for an input is BLAKE2b-256 of its Ed25519
/// signature of that input. Ed25519 is deterministic, so every party can
/// check a claimed score against the signature; scores compare as
/// big-endian 256-bit integers.
struct lottery_ticket {
  score value{};
  signature sig{};
};

/// The signed lottery input: tag (1 B) || qid (8 B LE) || attempt (4 B LE)
/// || BLAKE2b-256 of the query's missing ids (uint32 LE, sorted) || the
/// query nonce r (32 B).
std::vector<std::uint8_t> lottery_input(std::uint8_t tag, std::uint64_t qid,
                                        std::uint32_t attempt,
                                        std::span<const std::uint32_t> ids,
                                        std::span<const std::uint8_t, 32> r);

lottery_ticket draw_ticket(const identity& id,
                           std::span<const std::uint8_t> input);

/// Whether `t` is `pk`'s honest ticket for `input`.
bool check_ticket(const public_key& pk, std::span<const std::uint8_t> input,
                  const lottery_ticket& t);

/// a > b as big-endian integers.
bool score_greater(const score& a, const score& b);

} // namespace veil::protocols::crypto
