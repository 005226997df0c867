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

#include <cstdint>
#include <memory>
#include <vector>

#include "protocols/crypto/sodium.hpp"
#include "protocols/mpc/ring.hpp"

namespace veil::protocols::mpc {

enum class item { triple, truncation, bit_triple, dabit };

/// A party's shares of k items of one kind: `parts` vectors of k words.
struct shares_of {
  std::vector<words> parts;
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

/// A party's source of correlated randomness: its seed's expansion and,
/// for the last party, the dealer's corrections. One counter per kind:
/// every party draws the same kinds in the same order (the protocols are
/// the same program at every party), so the calls line up.
class correlations {
public:
  /// `corrections` is asked for the last party's corrections only (a
  /// local dealer here; the dealer actor's messages in a session).
  correlations(int id, int parties, const crypto::key32& seed,
               const dealer* corrections);

  shares_of next(item kind, std::size_t k);
  /// SecPerm's correlation for `vectors` vectors of length n permuted by
  /// `owner`; pi_p is empty except at the owner.
  permutation_shares next_permutation(int owner, std::size_t n,
                                      std::size_t vectors);

private:
  int id_, parties_;
  crypto::key32 seed_;
  const dealer* dealer_;
  std::uint64_t calls_[5] = {0, 0, 0, 0, 0}; // the four items, permutations
};

} // namespace veil::protocols::mpc
