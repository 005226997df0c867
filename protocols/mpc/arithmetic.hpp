#pragma once

// Arithmetic on additive shares (spec privet §4.4–4.5): Beaver
// multiplication and CrypTen's truncation by wrap counting, in the exact
// variant of the spec's fix by default. Every function works on whole
// vectors: one call, one round, however many elements.

#include <cstddef>

#include "protocols/mpc/party.hpp"

namespace veil::protocols::mpc {

/// [[x y]] element by element (scales add: S1 × SF is SF, SF × SF is 2^2f
/// and wants trunc). One triple per element, 1 round.
task<words> mul(party& self, words x, words y);

/// How truncation removes the shares' wraps: `exact` also corrects the
/// signed overflow η of z + r (every party sees p = z + r; one more dealer
/// bit per element); `paper` ignores η as CrypTen and the paper do (p to
/// P_1 only), and fails with probability about |z| / 2^64 per element.
enum class truncation { exact, paper };

/// [[⌊z / 2^bits⌋ − e]] with e in {0, …, n − 1}, for |z| < 2^62 (exact).
/// 1 round.
task<words> trunc(party& self, words z, int bits,
                  truncation mode = truncation::exact);

/// Fixed-point product: trunc(mul(x, y), f). 2 rounds.
task<words> mul_fixed(party& self, words x, words y,
                      truncation mode = truncation::exact);

/// Local: a share times a public integer (no truncation).
words scale(std::span<const word> x, word k);

} // namespace veil::protocols::mpc
