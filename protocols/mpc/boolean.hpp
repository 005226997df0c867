#pragma once

// Boolean shares and comparison (spec privet §4.6–4.7): XOR shares of
// 64-bit words, AND with the dealer's bit triples, a shared bit to an
// arithmetic one with a daBit (CrypTen's B2A), and the sign of a shared
// value as the borrow of a parallel prefix subtractor from the value
// masked by the dealer's edaBit.

#include "protocols/mpc/party.hpp"

namespace veil::protocols::mpc {

/// XOR shares of x ∧ y, word by word (64 ANDs per word). 1 round.
task<words> and_words(party& self, words x, words y);

/// Arithmetic S1 shares of bits XOR-shared in bit 0 of `bits`. 1 round.
task<words> bit_to_arithmetic(party& self, words bits);

/// XOR shares (bit 0) of [[x < 0]] (x read as signed): every party
/// learns c = x + s for the dealer's edaBit s (uniform), and x's MSB is
/// c's ⊕ s's ⊕ the borrow of c − s out of bits 0..62, whose generate and
/// propagate bits are local (c is public) and whose radix-4 prefix takes
/// 3 rounds (the ANDs of up to four operands from the dealer's products
/// of their masks): 4 rounds, 21 words per element.
task<words> sign_bits(party& self, words x);

/// [[b v]] for bits b XOR-shared in bit 0 and arithmetic v, 1 round: b ⊕ ρ
/// and v − β are opened for the dealer's selection triple (ρ as a bit and
/// S1, β, ρ β), and b v = c v + (1 − 2c)(e ρ + [[ρ β]]).
task<words> select(party& self, words bits, words values);

/// [[x < 0]] as S1 shares: sign_bits and B2A, 5 rounds.
task<words> less_than_zero(party& self, words x);

/// [[a < b]] = less_than_zero(a − b): exact while |a − b| < 2^63.
task<words> less_than(party& self, words a, words b);
/// The same as XOR shares (sign_bits(a − b)), 4 rounds.
task<words> less_than_bits(party& self, words a, words b);

} // namespace veil::protocols::mpc
