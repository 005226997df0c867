#pragma once

// The dealer's correlated randomness (spec privet §4.3), the way CrypTen's
// trusted dealer does it: the dealer gives each party a 32-byte seed once;
// every party expands its share of every item from its seed, and only the
// last party also gets a correction from the dealer for the components
// that must agree with the others' (c = ab, the wrap count and MSB of r,
// a daBit's arithmetic share), about one word per item. The streams are
// indexed by (kind, call counter), so an item is never used twice.
//
//   arithmetic triple   a, b uniform, c = ab                  (Beaver)
//   truncation pair     r uniform, θ_r = W(r's shares), μ = msb(r)  (Trunc)
//   bit triple          XOR shares of words a, b, c = a ∧ b     (AND)
//   daBit               a bit ρ as XOR shares (bit 0) and as S1 shares (B2A)
//   mask                b uniform (no correction: nothing must agree)
//   truncation mask     r uniform, ρ = (r mod 2^63) >> bits, μ = msb(r)
//   cross product       a ⊙ b of two items dealt before (masked.hpp)
//   edaBit              s as XOR shares of its 64 bits and as S1 shares
//   selection triple    a bit ρ (XOR, bit 0; and S1), b uniform, ρ b
//   bit mask            a word's XOR shares (no correction)
//   bit cross product   the AND of 2 to 4 bit masks dealt before

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "protocols/crypto/sodium.hpp"
#include "protocols/mpc/ring.hpp"

namespace veil::protocols::mpc {

enum class item {
  triple,
  truncation,
  bit_triple,
  dabit,
  permutation,
  mask,
  trunc_mask,
  cross,
  edabit,
  selection,
  bit_mask,
  bit_cross
};
inline constexpr int item_kinds = 12;

/// One dealt vector: part `part` of call `call` of `kind`, `count` items
/// (a truncation mask's ρ also depends on its `bits`).
struct component {
  item kind = item::mask;
  std::uint64_t call = 0;
  std::size_t count = 0;
  int bits = 0;
  int part = 0;
};

/// What the last party asks the dealer for: the corrections of call `call`
/// of `kind` for `count` items (a permutation: `count` vectors of `length`
/// permuted by `owner`; a truncation mask: for a shift by `bits`; a cross
/// product: of its `operands`, element by element, two masks' (×) or 2 to
/// 4 bit masks' (∧)).
struct correlation_request {
  item kind = item::triple;
  std::uint64_t call = 0;
  std::size_t count = 0;
  int owner = -1;
  std::size_t length = 0;
  int bits = 0;
  std::vector<component> operands;
};

/// Whether the last party's share of `kind` needs the dealer at all (a
/// mask or a bit mask is uniform at every party).
bool corrected(item kind);

/// A party's shares of k items of one kind: `parts` vectors of k words.
struct shares_of {
  std::vector<words> parts;
  std::uint64_t call = 0; ///< which call of its kind
};

class dealer {
public:
  /// Seeds for `parties` parties (at least 2): from the operating
  /// system's CSPRNG, or, with a non-zero `seed`, derived from it
  /// (tests and reproducible runs: predictable).
  dealer(int parties, std::uint64_t seed = 0);

  int parties() const { return static_cast<int>(seeds_.size()); }
  /// What the dealer sends party `p` at setup.
  const crypto::key32& seed_of(int p) const { return seeds_.at(p); }
  /// The last party's corrected components of call `call` of `kind`
  /// (k items), in the order of the kind's parts (triple: c; truncation:
  /// θ, μ; bit triple: c; daBit: the arithmetic share), one after the
  /// other. Counts the words it hands out.
  words correction(item kind, std::uint64_t call, std::size_t k) const;
  /// The answer to a request: correction(), permutation_correction(), a
  /// truncation mask's ρ then μ, or a cross product's share.
  words answer(const correlation_request& r) const;
  /// The value of a mask's, a truncation mask's or a bit mask's part (the
  /// sum, or XOR, of every party's corrected share): what a cross product
  /// multiplies.
  words value_of(const component& c) const;
  /// Words of corrections handed out so far (the offline traffic, besides
  /// one seed per party).
  std::uint64_t correction_words() const { return correction_words_; }
  /// The last party's ρ shares (vector after vector) of permutation call
  /// `call` by `owner`.
  words permutation_correction(int owner, std::uint64_t call, std::size_t n,
                               std::size_t vectors) const;

private:
  std::vector<crypto::key32> seeds_;
  mutable std::uint64_t correction_words_ = 0;
  /// The last few components' values: a layer's cross products share
  /// their operands.
  struct known_value {
    item kind;
    std::uint64_t call;
    int part, bits;
    words value;
  };
  mutable std::vector<known_value> recent_;
  /// The calls answered so far, by kind, and each truncation mask's shift:
  /// a call is answered once (two answers to one call with other shifts
  /// or operands would differ by a function of the masks), and a cross
  /// product multiplies only truncation masks dealt with its shift.
  mutable std::map<std::pair<int, std::uint64_t>, int> answered_;
};

/// SecPerm's correlation (spec privet §4.11) for `vectors` vectors of
/// length N permuted by one owner: π_p, a uniform permutation the owner
/// alone gets (derived from the owner's seed), and per vector a fresh
/// [[r]] and [[ρ]] with ρ = gather(π_p, r).
struct permutation_shares {
  std::vector<std::uint32_t> pi_p; ///< the owner's only
  std::vector<words> r, rho;       ///< per vector
};

/// The spec's apply(π, x): gather(π, x)[i] = x[π[i]].
words gather(std::span<const std::uint32_t> pi, std::span<const word> x);
/// A uniform permutation of [0, n) from `key`'s stream (Fisher–Yates with
/// unbiased bounded draws).
std::vector<std::uint32_t> random_permutation(const crypto::key32& key,
                                              std::size_t n);

/// Party `p`'s expansion of its seed for call `call` of `kind`: every part
/// as the PRG gives it (before any correction).
shares_of expand_item(const crypto::key32& seed, item kind, std::uint64_t call,
                      std::size_t k);
/// Parts per item of `kind` (0 for a permutation).
std::size_t parts_of(item kind);

/// A party's source of correlated randomness: its seed's expansion, and
/// for the last party the request for the dealer's corrections (which
/// party::correlated() sends and waits for: the dealer is another party,
/// an actor in a session). One counter per kind: every party draws the
/// same kinds in the same order (the protocols are the same program at
/// every party), so the calls line up.
class correlations {
public:
  correlations(int id, int parties, const crypto::key32& seed);

  bool needs_corrections() const { return id_ == parties_ - 1; }
  /// This party's expansion of the next call of `kind`, and the request
  /// that completes it (the last party only).
  shares_of next(item kind, std::size_t k, correlation_request& request);
  /// The same for `request`'s kind and count (and bits, operands): fills
  /// in its call.
  shares_of next(correlation_request& request);
  /// SecPerm's correlation for `vectors` vectors of length n permuted by
  /// `owner`; pi_p is empty except at the owner.
  permutation_shares next_permutation(int owner, std::size_t n,
                                      std::size_t vectors,
                                      correlation_request& request);
  /// Puts the dealer's answer into the last party's shares.
  static void correct(shares_of& mine, item kind, std::size_t k,
                      const words& answer);
  /// The words of the dealer's answer for k items of `kind`.
  static std::size_t correction_length(item kind, std::size_t k);
  static void correct(permutation_shares& mine, std::size_t n,
                      const words& answer);

private:
  int id_, parties_;
  crypto::key32 seed_;
  std::uint64_t calls_[item_kinds] = {}; // by item
};

} // namespace veil::protocols::mpc
