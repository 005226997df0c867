#pragma once

// Paillier additively homomorphic encryption with GMP (spec feverless
// §10.5, §15.1): the AHE baseline's ciphertexts.
//
// Scheme, with the g = n + 1 simplification (Damgård–Jurik):
//   key:      n = p q, p and q random primes of bits/2 bits each (top two
//             bits set, so n has exactly `bits` bits)
//   encrypt:  c = (1 + m n) h_s^a mod n^2, a uniform in [0, 2^ceil(bits/2))
//             (Damgård–Jurik–Nielsen's fixed base, below), or textbook
//             c = (1 + m n) r^n mod n^2, r uniform in [1, n)
//   add:      c1 c2 mod n^2  decrypts to m1 + m2 mod n
//   decrypt:  by CRT over p^2 and q^2: m_p = L_p(c^(p-1) mod p^2) h_p mod p
//             with L_p(x) = (x - 1)/p, h_p = L_p((n+1)^(p-1) mod p^2)^-1,
//             likewise for q, then m = CRT(m_p, m_q)
// Plaintexts are signed: m is taken mod n on encryption and decrypted to the
// centered lift in (-n/2, n/2], so sums of signed values decode exactly as
// long as their magnitude stays below n/2 (for a 1024-bit n, any number of
// 64-bit values a protocol can send).
//
// Randomness: every random bit (prime candidates, r) is drawn from the
// injected 64-bit engine: crypto::system_random in production,
// crypto::seeded_random in tests. [D] No gmp_randstate_t: GMP's generators
// (Mersenne Twister, linear congruential) are not cryptographic, so
// seeding one from the CSPRNG and drawing key material from it would be
// weaker than drawing from the CSPRNG directly. (GMP's primality test keeps
// its own internal state for the Miller–Rabin bases, which need not be
// secret.)
//
// [D] Encryption randomness (docs/paillier.md): the key owner publishes
// h_s = h^n mod n^2 with h = -x^2 mod n for a random x (Damgård, Jurik,
// Nielsen 2010, §4), and an encryptor raises this fixed base to a random
// exponent of half n's bits, from a table of h_s^(j 16^i) built once per
// key: about 1/12 of the textbook r^n at 2,048 bits. h_s^a is an n-th
// residue, so decryption is unchanged. Semantic security rests on DCR and
// on h_s^a for short a being indistinguishable from a random element of
// h_s's group (DJN's assumption; docs/paillier.md). The table entry of each
// 4-bit digit of a is read with mpn_sec_tabselect, which reads the whole
// row: its address does not depend on a. The products are mpz arithmetic,
// whose time depends on the operands' lengths only.
//
// Secrets: the private key's integers are zeroed limb by limb before they
// are freed, and no type here has a stream operator or to_string. GMP's
// scratch space inside mpz_powm is not wiped (that would need process-wide
// mp_set_memory_functions).

#include <gmp.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "protocols/crypto/fixed_point.hpp"

namespace veil::protocols::paillier {

/// The source of random 64-bit words (same shape as feverless's engine).
using random_engine = std::function<std::uint64_t()>;

/// An owning mpz_t (RAII). Moves are cheap (mpz_init allocates nothing since
/// GMP 6.2); copies copy the limbs.
class integer {
public:
  integer() { mpz_init(v_); }
  explicit integer(long x) { mpz_init_set_si(v_, x); }
  integer(const integer& o) { mpz_init_set(v_, o.v_); }
  integer(integer&& o) noexcept {
    mpz_init(v_);
    mpz_swap(v_, o.v_);
  }
  integer& operator=(const integer& o) {
    mpz_set(v_, o.v_);
    return *this;
  }
  integer& operator=(integer&& o) noexcept {
    mpz_swap(v_, o.v_);
    return *this;
  }
  ~integer() { mpz_clear(v_); }

  mpz_ptr get() { return v_; }
  mpz_srcptr get() const { return v_; }

  /// Exact conversion of a signed 64-bit value (mpz_set_si takes a long,
  /// which is 64 bits on the platforms we build for).
  static integer from_int64(std::int64_t x);
  /// The value if it fits an int64_t.
  std::optional<std::int64_t> to_int64() const;
  /// The value mod 2^64 (two's complement for negative values).
  std::uint64_t low64() const;

  friend bool operator==(const integer& a, const integer& b) {
    return mpz_cmp(a.v_, b.v_) == 0;
  }

  /// Zeroes every allocated limb (the value becomes garbage: reassign or
  /// destroy it).
  void wipe();

private:
  mpz_t v_;
};

/// An integer that is wiped when it goes away (private key material).
class secret_integer : public integer {
public:
  using integer::integer;
  secret_integer() = default;
  secret_integer(const secret_integer&) = default;
  secret_integer(secret_integer&&) noexcept = default;
  secret_integer& operator=(const secret_integer&) = default;
  secret_integer& operator=(secret_integer&& o) noexcept {
    integer::operator=(std::move(o));
    return *this;
  }
  ~secret_integer() { wipe(); }
};

/// A ciphertext: an element of Z*_{n^2}.
struct ciphertext {
  integer c;
};

/// Powers of a fixed base mod n^2 for encryption (public_key keeps one).
struct fixed_base_table;

/// A Paillier public key (n, and the fixed base h_s of its encryption
/// randomness). Cheap to copy relative to the work it does.
class public_key {
public:
  /// Takes n as is: it must be odd and > 1. Without a fixed base, encrypt()
  /// is textbook (r^n). Throws std::invalid_argument.
  explicit public_key(integer n);
  /// With the fixed base h_s (1 < h_s < n^2, coprime to n): builds its
  /// table (2 MB and about 17 ms at 2,048 bits).
  public_key(integer n, integer hs);

  /// n then h_s, big-endian, exactly public_bytes() bytes (leading zeros
  /// kept). Throws std::logic_error for a key without a fixed base.
  std::vector<std::uint8_t> to_bytes() const;
  /// Parses to_bytes(); empty unless the bytes hold an odd n of exactly
  /// `bits` bits in (bits + 7)/8 bytes, then a fixed base in 2 (bits + 7)/8
  /// bytes with 1 < h_s < n^2 and gcd(h_s, n) = 1.
  static std::optional<public_key> from_bytes(std::span<const std::uint8_t> b,
                                              int bits);

  const integer& n() const { return n_; }
  const integer& n_squared() const { return n2_; }
  /// h_s, or 0 for a key without a fixed base.
  const integer& fixed_base() const { return hs_; }
  /// Bits of the random exponent of a fixed-base encryption: ceil(bits/2).
  int exponent_bits() const { return (bits_ + 1) / 2; }
  /// Bytes of to_bytes(): 3 key_bytes().
  std::size_t public_bytes() const { return 3 * key_bytes(); }
  /// Bits of n.
  int bits() const { return bits_; }
  /// Bytes of n: 128 for a 1024-bit key.
  std::size_t key_bytes() const {
    return (static_cast<std::size_t>(bits_) + 7) / 8;
  }
  /// Bytes of a serialized ciphertext: 2 key_bytes() (256 for 1024 bits).
  std::size_t ciphertext_bytes() const { return 2 * key_bytes(); }

  /// Encrypts m (signed): with the fixed base if the key has one. Throws
  /// std::invalid_argument when |m| >= n/2, where the centered lift could
  /// not give it back.
  ciphertext encrypt(const integer& m, random_engine& rng) const;
  /// encrypt() of every plaintext of `ms`, on up to `threads` threads (0:
  /// every core): the exponents are drawn from `rng` first, in order, so
  /// the ciphertexts are those of encrypt() called in turn.
  std::vector<ciphertext> encrypt_all(std::span<const integer> ms,
                                      random_engine& rng, int threads) const;
  /// The textbook encryption (1 + m n) r^n mod n^2, whatever the key: the
  /// reference the fixed-base encryption is tested against.
  ciphertext encrypt_textbook(const integer& m, random_engine& rng) const;
  ciphertext encrypt(std::int64_t m, random_engine& rng) const;
  /// The encryption of fp.encode(x), as a signed integer llround(x 2^F):
  /// sums of such ciphertexts decrypt (decrypt_fixed) to what
  /// crypto::fixed_point's modular sum would decode. Throws
  /// std::invalid_argument when fp cannot encode x.
  ciphertext encrypt_fixed(const crypto::fixed_point& fp, double x,
                           random_engine& rng) const;

  /// The ciphertext of the sum of the plaintexts.
  ciphertext add(const ciphertext& a, const ciphertext& b) const;
  /// acc <- acc + x (homomorphically).
  void add_to(ciphertext& acc, const ciphertext& x) const;
  /// c <- the ciphertext of its plaintext times 2^bits (c^(2^bits)): moves
  /// packed slots up, to pack several sums into one ciphertext. The caller
  /// keeps the product below n/2 (a packing's slots do).
  void shift_to(ciphertext& c, unsigned bits) const;
  /// The trivial encryption of 0 (c = 1, no randomness): a start for sums
  /// that never leaves the party that made it.
  ciphertext zero() const;

  /// Writes c big-endian into exactly ciphertext_bytes() bytes (leading
  /// zeros kept). Throws std::invalid_argument on a wrong size.
  void write(const ciphertext& c, std::span<std::uint8_t> out) const;
  std::vector<std::uint8_t> write(const ciphertext& c) const;
  /// Parses write(); empty unless the size is ciphertext_bytes() and
  /// 0 < c < n^2.
  std::optional<ciphertext> read(std::span<const std::uint8_t> in) const;

  friend bool operator==(const public_key& a, const public_key& b) {
    return a.n_ == b.n_;
  }

private:
  /// (1 + m n) mod n^2 with m checked and taken mod n.
  integer plaintext_part(const integer& m) const;
  /// A fixed-base exponent's words, uniform below 2^exponent_bits().
  std::vector<std::uint64_t> draw_exponent(random_engine& rng) const;
  /// g h_s^a mod n^2 (a from draw_exponent, wiped).
  ciphertext fixed_base_encrypt(const integer& g,
                                std::vector<std::uint64_t>& a) const;

  integer n_;
  integer n2_;
  int bits_ = 0;
  integer hs_;
  std::shared_ptr<const fixed_base_table> table_;
};

/// SecureBoost's packing (Cheng et al. 2021): several unsigned 64-bit values
/// in one plaintext, value j in bits [j b, j b + b) with b = 64 + the bits
/// that a sum of up to `summands` plaintexts carries out of a slot. Packed
/// plaintexts add slot by slot, so one ciphertext carries slots() sums, each
/// exact mod 2^64 (two's complement values and fixed-point words included).
/// Every packed plaintext, and every such sum, stays below 2^(bits - 2)
/// < n/2, where the centered lift of decrypt() gives it back unchanged.
class packing {
public:
  /// For sums of at most `summands` (>= 1) packed plaintexts under `pk`.
  packing(const public_key& pk, std::size_t summands);

  std::size_t slots() const { return slots_; }
  unsigned slot_bits() const { return slot_bits_; }
  /// Ciphertexts for `values` values.
  std::size_t ciphertexts(std::size_t values) const {
    return (values + slots_ - 1) / slots_;
  }
  /// The plaintext of `values` (at most slots(); throws
  /// std::invalid_argument otherwise).
  integer pack(std::span<const std::uint64_t> values) const;
  /// Slot j of `m` mod 2^64 into out[j] (out.size() <= slots()). Throws
  /// std::invalid_argument when m is negative or does not fit the slots:
  /// more summands than the packing was made for, or a forged sum.
  void unpack(const integer& m, std::span<std::uint64_t> out) const;

private:
  unsigned slot_bits_ = 64;
  std::size_t slots_ = 1;
};

/// A Paillier private key: the factors and the CRT decryption constants,
/// wiped on destruction. Move-only; has no stream operator.
class private_key {
public:
  private_key(const private_key&) = delete;
  private_key& operator=(const private_key&) = delete;
  private_key(private_key&&) noexcept = default;
  private_key& operator=(private_key&&) noexcept = default;

  const public_key& public_part() const { return pub_; }

  /// The centered lift of the plaintext, in (-n/2, n/2].
  integer decrypt(const ciphertext& c) const;
  /// decrypt() of every ciphertext of `cs`, on up to `threads` threads (0:
  /// every core).
  std::vector<integer> decrypt_all(std::span<const ciphertext> cs,
                                   int threads) const;
  /// The textbook decryption, L(c^λ mod n^2) μ mod n with λ = lcm(p - 1,
  /// q - 1) and μ = L((n + 1)^λ mod n^2)^-1, centered like decrypt(): the
  /// reference decrypt()'s CRT is tested against (about 3x slower).
  integer decrypt_textbook(const ciphertext& c) const;
  /// decrypt() if it fits an int64_t.
  std::optional<std::int64_t> decrypt_int64(const ciphertext& c) const;
  /// decrypt() times 2^-F: for a sum of encrypt_fixed() values whose
  /// integer sum fits an int64_t this is exactly fp.decode() of the modular
  /// sum; larger sums (impossible mod 2^64) are rounded by mpz_get_d.
  double decrypt_fixed(const crypto::fixed_point& fp,
                       const ciphertext& c) const;

private:
  friend private_key generate_key(int bits, random_engine& rng);
  private_key(public_key pub, secret_integer p, secret_integer q);

  public_key pub_;
  secret_integer p_, q_, p2_, q2_;
  secret_integer hp_, hq_; // h_p, h_q of the CRT decryption
  secret_integer q_inv_p_; // q^-1 mod p
};

/// A fresh key pair with an n of exactly `bits` bits. bits must be even and
/// in [256, 8192]; the protocols use 1024 (the paper's) or 2048. Throws
/// std::invalid_argument otherwise.
private_key generate_key(int bits, random_engine& rng);

/// `bits` uniformly random bits from the engine, as a non-negative integer.
integer random_bits(random_engine& rng, int bits);

} // namespace veil::protocols::paillier
