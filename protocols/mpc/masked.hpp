#pragma once

// Masked values: a public part every party knows plus a mask the dealer
// dealt, x = X + m. Opening x − b (a fresh mask b) or a truncation's
// x + r makes one; the product of two is then local, with the dealer's
// shares of the masks' cross products (Beaver's triple with the openings
// moved ahead). A truncation's output is itself masked, so a fixed-point
// product costs one opening of one word per element and one round,
// where mul_fixed costs three words and two rounds: Newton's reciprocal
// halves its rounds and thirds its bytes.
//
// The truncation (exact for |x| < 2^62, like arithmetic.hpp's exact one):
// the dealer's r is μ 2^63 + r_lo with ρ = r_lo >> bits and μ shared;
// every party learns p = x + 2^62 + r (uniform), and with c = p_msb ⊕ μ
// (the carry of x + 2^62 + r_lo out of 63 bits), x + 2^62 = p_lo − r_lo +
// c 2^63, so ⌊x / 2^bits⌋ + δ = (p_lo >> bits) − 2^(62−bits) + p_msb
// 2^(63−bits) − ρ + (1 − 2 p_msb) 2^(63−bits) μ, with δ ∈ {0, 1} the
// borrow of the low bits left out: at most one ulp above the floor, at
// any n.

#include <vector>

#include "protocols/mpc/party.hpp"

namespace veil::protocols::mpc {

/// One dealt part of a mask, with its coefficient per element and this
/// party's share.
struct mask_term {
  component source;
  words coefficient;
  words share;
};

struct masked {
  words known; ///< the public part, the same at every party
  std::vector<mask_term> terms;
  std::size_t size() const { return known.size(); }
};

/// A vector to open masked: `bits` = 0 keeps x (x − b is opened), `bits`
/// > 0 truncates it (x + 2^62 + r is opened; |x| < 2^62).
struct to_open {
  words x;
  int bits = 0;
};

/// Every job's opening in one round (one word per element).
task<std::vector<masked>> open_masked(party& self, std::vector<to_open> jobs);

/// This party's additive share of v.
words share_of(const party& self, const masked& v);

/// [[a b]] element by element (scales add), without a round: the public
/// parts' products and the dealer's shares of the masks' cross products
/// (one request per pair of terms, answered ahead in a session).
task<words> product(party& self, const masked& a, const masked& b);

/// c − a for a public real c (scale 2^f).
masked subtract_from(double c, const masked& a);

} // namespace veil::protocols::mpc
