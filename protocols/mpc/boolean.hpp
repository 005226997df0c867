#pragma once

// Boolean shares and comparison (spec privet §4.6–4.7): XOR shares of
// 64-bit words, AND with the dealer's bit triples, a shared bit to an
// arithmetic one with a daBit (CrypTen's B2A), and the sign of a shared
// value as the carry of a parallel prefix adder over the parties' shares.

#include "protocols/mpc/party.hpp"

namespace veil::protocols::mpc {

/// XOR shares of x ∧ y, word by word (64 ANDs per word). 1 round.
task<words> and_words(party& self, words x, words y);

/// Arithmetic S1 shares of bits XOR-shared in bit 0 of `bits`. 1 round.
task<words> bit_to_arithmetic(party& self, words bits);

/// [[x < 0]] as S1 shares (x read as signed): the MSB of the sum of the
/// parties' shares, from their XOR-shared words through carry-save adders
/// (while more than two words) and a Kogge–Stone prefix adder, then B2A.
/// Rounds for 64-bit words: CSA layers + 1 + 6 + 1 (10 for 4 parties).
task<words> less_than_zero(party& self, words x);

/// [[a < b]] = less_than_zero(a − b): exact while |a − b| < 2^63.
task<words> less_than(party& self, words a, words b);

} // namespace veil::protocols::mpc
