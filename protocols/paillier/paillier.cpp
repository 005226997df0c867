#include "protocols/paillier/paillier.hpp"

#include "learners/parallel.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <omp.h>
#include <sodium.h>
#include <stdexcept>
#include <string>

namespace veil::protocols::paillier {

static_assert(sizeof(long) == 8, "mpz_set_si / mpz_get_si must take 64 bits");
static_assert(GMP_NAIL_BITS == 0, "limbs are wiped as whole words");

// ---------------------------------------------------------------------------
// integer

integer integer::from_int64(std::int64_t x) {
  return integer(static_cast<long>(x));
}

std::optional<std::int64_t> integer::to_int64() const {
  if (!mpz_fits_slong_p(v_))
    return std::nullopt;
  return static_cast<std::int64_t>(mpz_get_si(v_));
}

std::uint64_t integer::low64() const {
  // mpz_getlimbn reads |v|'s lowest limb; two's complement for v < 0.
  std::uint64_t mag = mpz_size(v_) == 0 ? 0 : mpz_getlimbn(v_, 0);
  return mpz_sgn(v_) < 0 ? 0 - mag : mag;
}

void integer::wipe() {
  if (v_->_mp_alloc > 0)
    sodium_memzero(v_->_mp_d,
                   static_cast<std::size_t>(v_->_mp_alloc) * sizeof(mp_limb_t));
  v_->_mp_size = 0;
}

integer random_bits(random_engine& rng, int bits) {
  if (bits <= 0)
    return integer();
  auto words = static_cast<std::size_t>((bits + 63) / 64);
  std::vector<std::uint64_t> w(words);
  for (auto& x : w)
    x = rng();
  if (bits % 64 != 0)
    w.back() &= (std::uint64_t{1} << (bits % 64)) - 1;
  integer out;
  // Least significant word first, native byte order within words.
  mpz_import(out.get(), words, -1, sizeof(std::uint64_t), 0, 0, w.data());
  sodium_memzero(w.data(), w.size() * sizeof(std::uint64_t));
  return out;
}

namespace {

/// Threads for `items` jobs of a millisecond or so each: `threads` (0:
/// every core), at most one per job.
int team_size(int threads, std::size_t items) {
  return learners::threads_for(items,
                               threads > 0 ? threads : omp_get_num_procs(), 1);
}

/// Uniform in [1, n) by rejection.
integer random_below(random_engine& rng, const integer& n, int bits) {
  integer r;
  do
    r = random_bits(rng, bits);
  while (mpz_sgn(r.get()) == 0 || mpz_cmp(r.get(), n.get()) >= 0);
  return r;
}

} // namespace

// ---------------------------------------------------------------------------
// public_key

/// h_s^(j 16^i) mod n^2 for j < 16, row i after row i - 1, each entry
/// `limbs` limbs (zero-padded): a fixed-base exponent's 4-bit digit i picks
/// entry j of row i.
struct fixed_base_table {
  static constexpr unsigned window = 4;
  static constexpr std::size_t entries = std::size_t{1} << window;
  std::size_t rows = 0;
  std::size_t limbs = 0;
  std::vector<mp_limb_t> powers;

  fixed_base_table(const integer& hs, const integer& n2, int exponent_bits)
      : rows((static_cast<std::size_t>(exponent_bits) + window - 1) / window),
        limbs(mpz_size(n2.get())), powers(rows * entries * limbs, 0) {
    integer base = hs, x;
    for (std::size_t i = 0; i < rows; ++i) {
      mpz_set_ui(x.get(), 1);
      for (std::size_t j = 0; j < entries; ++j) {
        store(i, j, x);
        mpz_mul(x.get(), x.get(), base.get());
        mpz_mod(x.get(), x.get(), n2.get());
      }
      base = x; // base^16
    }
  }

  void store(std::size_t row, std::size_t j, const integer& x) {
    auto* at = powers.data() + (row * entries + j) * limbs;
    auto size = mpz_size(x.get());
    for (std::size_t k = 0; k < size; ++k)
      at[k] = mpz_getlimbn(x.get(), static_cast<mp_size_t>(k));
  }

  /// h_s^a mod n^2 for the exponent a in `words` (least significant
  /// first, rows * window bits at most).
  void power(mpz_ptr out, std::span<const std::uint64_t> words,
             const integer& n2) const {
    std::vector<mp_limb_t> entry(limbs);
    mpz_set_ui(out, 1);
    for (std::size_t i = 0; i < rows; ++i) {
      auto bit = i * window;
      auto digit = (words[bit / 64] >> (bit % 64)) & (entries - 1);
      // Reads the whole row: the address does not depend on the digit.
      mpn_sec_tabselect(entry.data(), powers.data() + i * entries * limbs,
                        static_cast<mp_size_t>(limbs),
                        static_cast<mp_size_t>(entries),
                        static_cast<mp_size_t>(digit));
      mpz_t view;
      mpz_mul(out, out,
              mpz_roinit_n(view, entry.data(), static_cast<mp_size_t>(limbs)));
      mpz_mod(out, out, n2.get());
    }
    sodium_memzero(entry.data(), entry.size() * sizeof(mp_limb_t));
  }
};

public_key::public_key(integer n) : n_(std::move(n)) {
  if (mpz_cmp_ui(n_.get(), 1) <= 0 || mpz_even_p(n_.get()))
    throw std::invalid_argument("paillier: n must be odd and greater than 1");
  bits_ = static_cast<int>(mpz_sizeinbase(n_.get(), 2));
  mpz_mul(n2_.get(), n_.get(), n_.get());
}

public_key::public_key(integer n, integer hs) : public_key(std::move(n)) {
  integer g;
  mpz_gcd(g.get(), hs.get(), n_.get());
  if (mpz_cmp_ui(hs.get(), 1) <= 0 || mpz_cmp(hs.get(), n2_.get()) >= 0 ||
      mpz_cmp_ui(g.get(), 1) != 0)
    throw std::invalid_argument("paillier: the fixed base must be in (1, n^2) "
                                "and coprime to n");
  hs_ = std::move(hs);
  table_ = std::make_shared<const fixed_base_table>(hs_, n2_, exponent_bits());
}

namespace {

/// x big-endian in exactly out.size() bytes (leading zeros kept).
void export_fixed(const integer& x, std::span<std::uint8_t> out) {
  auto need = (mpz_sizeinbase(x.get(), 2) + 7) / 8;
  std::fill(out.begin(), out.end() - static_cast<std::ptrdiff_t>(need), 0);
  std::size_t count = 0;
  mpz_export(out.data() + out.size() - need, &count, 1, 1, 1, 0, x.get());
}

} // namespace

std::vector<std::uint8_t> public_key::to_bytes() const {
  if (!table_)
    throw std::logic_error("paillier: a key without a fixed base is not sent");
  std::vector<std::uint8_t> out(public_bytes(), 0);
  export_fixed(n_, std::span(out).first(key_bytes()));
  export_fixed(hs_, std::span(out).subspan(key_bytes()));
  return out;
}

std::optional<public_key>
public_key::from_bytes(std::span<const std::uint8_t> b, int bits) {
  auto key = (static_cast<std::size_t>(bits) + 7) / 8;
  if (bits < 2 || b.size() != 3 * key)
    return std::nullopt;
  integer n, hs;
  mpz_import(n.get(), key, 1, 1, 1, 0, b.data());
  if (mpz_sizeinbase(n.get(), 2) != static_cast<std::size_t>(bits) ||
      mpz_even_p(n.get()) || mpz_cmp_ui(n.get(), 1) <= 0)
    return std::nullopt;
  mpz_import(hs.get(), 2 * key, 1, 1, 1, 0, b.data() + key);
  try {
    return public_key(std::move(n), std::move(hs));
  } catch (const std::invalid_argument&) {
    return std::nullopt;
  }
}

integer public_key::plaintext_part(const integer& m) const {
  // |m| < n/2, i.e. 2|m| < n: the centered lift gives m back.
  integer twice;
  mpz_mul_2exp(twice.get(), m.get(), 1);
  mpz_abs(twice.get(), twice.get());
  if (mpz_cmp(twice.get(), n_.get()) >= 0)
    throw std::invalid_argument("paillier: plaintext magnitude is not below "
                                "n/2");
  // (1 + m n) mod n^2 with m taken mod n.
  integer g;
  mpz_mod(g.get(), m.get(), n_.get());
  mpz_mul(g.get(), g.get(), n_.get());
  mpz_add_ui(g.get(), g.get(), 1);
  return g;
}

std::vector<std::uint64_t> public_key::draw_exponent(random_engine& rng) const {
  // a uniform in [0, 2^exponent_bits), straight from the engine's words.
  auto bits = static_cast<std::size_t>(exponent_bits());
  std::vector<std::uint64_t> a(
      (table_->rows * fixed_base_table::window + 63) / 64, 0);
  for (auto& w : a)
    w = rng();
  for (auto b = bits; b < 64 * a.size(); ++b)
    a[b / 64] &= ~(std::uint64_t{1} << (b % 64));
  return a;
}

ciphertext public_key::fixed_base_encrypt(const integer& g,
                                          std::vector<std::uint64_t>& a) const {
  ciphertext out;
  table_->power(out.c.get(), a, n2_);
  sodium_memzero(a.data(), a.size() * sizeof(std::uint64_t));
  mpz_mul(out.c.get(), out.c.get(), g.get());
  mpz_mod(out.c.get(), out.c.get(), n2_.get());
  return out;
}

ciphertext public_key::encrypt(const integer& m, random_engine& rng) const {
  if (!table_)
    return encrypt_textbook(m, rng);
  auto g = plaintext_part(m);
  auto a = draw_exponent(rng);
  return fixed_base_encrypt(g, a);
}

std::vector<ciphertext> public_key::encrypt_all(std::span<const integer> ms,
                                                random_engine& rng,
                                                int threads) const {
  std::vector<ciphertext> out(ms.size());
  if (!table_) {
    for (std::size_t i = 0; i < ms.size(); ++i)
      out[i] = encrypt_textbook(ms[i], rng);
    return out;
  }
  // Everything that throws or draws happens here, in order; the threads
  // only multiply.
  std::vector<integer> g;
  std::vector<std::vector<std::uint64_t>> a;
  g.reserve(ms.size());
  a.reserve(ms.size());
  for (const auto& m : ms) {
    g.push_back(plaintext_part(m));
    a.push_back(draw_exponent(rng));
  }
  auto n = static_cast<std::ptrdiff_t>(ms.size());
#pragma omp parallel for schedule(dynamic, 1)                                  \
    num_threads(team_size(threads, ms.size()))
  for (std::ptrdiff_t i = 0; i < n; ++i)
    out[static_cast<std::size_t>(i)] = fixed_base_encrypt(
        g[static_cast<std::size_t>(i)], a[static_cast<std::size_t>(i)]);
  return out;
}

ciphertext public_key::encrypt_textbook(const integer& m,
                                        random_engine& rng) const {
  auto g = plaintext_part(m);
  // r shares a factor with n only with negligible probability: it would
  // factor n.
  auto r = random_below(rng, n_, bits_);
  ciphertext out;
  mpz_powm(out.c.get(), r.get(), n_.get(), n2_.get());
  r.wipe();
  mpz_mul(out.c.get(), out.c.get(), g.get());
  mpz_mod(out.c.get(), out.c.get(), n2_.get());
  return out;
}

ciphertext public_key::encrypt(std::int64_t m, random_engine& rng) const {
  return encrypt(integer::from_int64(m), rng);
}

ciphertext public_key::encrypt_fixed(const crypto::fixed_point& fp, double x,
                                     random_engine& rng) const {
  auto e = fp.encode(x);
  if (!e)
    throw std::invalid_argument("paillier: the value does not fit the fixed "
                                "point range");
  return encrypt(static_cast<std::int64_t>(*e), rng);
}

ciphertext public_key::add(const ciphertext& a, const ciphertext& b) const {
  ciphertext out;
  mpz_mul(out.c.get(), a.c.get(), b.c.get());
  mpz_mod(out.c.get(), out.c.get(), n2_.get());
  return out;
}

void public_key::add_to(ciphertext& acc, const ciphertext& x) const {
  mpz_mul(acc.c.get(), acc.c.get(), x.c.get());
  mpz_mod(acc.c.get(), acc.c.get(), n2_.get());
}

void public_key::shift_to(ciphertext& c, unsigned bits) const {
  integer power;
  mpz_setbit(power.get(), bits);
  mpz_powm(c.c.get(), c.c.get(), power.get(), n2_.get());
}

ciphertext public_key::zero() const {
  ciphertext out;
  mpz_set_ui(out.c.get(), 1);
  return out;
}

void public_key::write(const ciphertext& c, std::span<std::uint8_t> out) const {
  if (out.size() != ciphertext_bytes())
    throw std::invalid_argument("paillier: a ciphertext takes " +
                                std::to_string(ciphertext_bytes()) + " bytes");
  if (mpz_sgn(c.c.get()) <= 0 || mpz_cmp(c.c.get(), n2_.get()) >= 0)
    throw std::invalid_argument("paillier: not a ciphertext of this key");
  export_fixed(c.c, out);
}

std::vector<std::uint8_t> public_key::write(const ciphertext& c) const {
  std::vector<std::uint8_t> out(ciphertext_bytes());
  write(c, out);
  return out;
}

std::optional<ciphertext>
public_key::read(std::span<const std::uint8_t> in) const {
  if (in.size() != ciphertext_bytes())
    return std::nullopt;
  ciphertext c;
  mpz_import(c.c.get(), in.size(), 1, 1, 1, 0, in.data());
  if (mpz_sgn(c.c.get()) <= 0 || mpz_cmp(c.c.get(), n2_.get()) >= 0)
    return std::nullopt;
  return c;
}

// ---------------------------------------------------------------------------
// packing

packing::packing(const public_key& pk, std::size_t summands) {
  if (summands == 0)
    throw std::invalid_argument("paillier::packing: no summands");
  unsigned carry = 0;
  while ((std::size_t{1} << carry) < summands)
    ++carry;
  slot_bits_ = 64 + carry;
  // Below 2^(bits - 2): n has its top two bits set, so n/2 > 2^(bits - 2).
  slots_ = static_cast<std::size_t>(pk.bits() - 2) / slot_bits_;
  if (slots_ == 0)
    throw std::invalid_argument("paillier::packing: the key is too small");
}

integer packing::pack(std::span<const std::uint64_t> values) const {
  if (values.size() > slots_)
    throw std::invalid_argument(
        "paillier::packing: " + std::to_string(values.size()) + " values for " +
        std::to_string(slots_) + " slots");
  static_assert(sizeof(unsigned long) == 8, "64-bit GMP limbs assumed");
  integer m;
  for (auto j = values.size(); j-- > 0;) {
    mpz_mul_2exp(m.get(), m.get(), slot_bits_);
    mpz_add_ui(m.get(), m.get(), values[j]);
  }
  return m;
}

void packing::unpack(const integer& m, std::span<std::uint64_t> out) const {
  if (out.size() > slots_)
    throw std::invalid_argument("paillier::packing: more slots asked for "
                                "than a plaintext holds");
  if (mpz_sgn(m.get()) < 0 || mpz_sizeinbase(m.get(), 2) > slots_ * slot_bits_)
    throw std::invalid_argument("paillier::packing: the plaintext does not "
                                "fit its slots");
  integer rest;
  for (std::size_t j = 0; j < out.size(); ++j) {
    mpz_tdiv_q_2exp(rest.get(), m.get(), j * slot_bits_);
    out[j] = mpz_getlimbn(rest.get(), 0);
  }
}

// ---------------------------------------------------------------------------
// private_key

namespace {

/// The centered lift of m in [0, n): m - n when m > n/2, so that signed
/// plaintexts come back with their sign.
integer centered(integer m, const integer& n) {
  integer twice;
  mpz_mul_2exp(twice.get(), m.get(), 1);
  if (mpz_cmp(twice.get(), n.get()) > 0)
    mpz_sub(m.get(), m.get(), n.get());
  return m;
}

/// L_p(c^(p-1) mod p^2) = (x - 1)/p.
void crt_half(mpz_ptr out, mpz_srcptr c, const integer& p, const integer& p2,
              mpz_srcptr h) {
  integer e, x;
  mpz_sub_ui(e.get(), p.get(), 1);
  mpz_mod(x.get(), c, p2.get());
  // The exponent p - 1 is secret: GMP's side-channel silent powm.
  mpz_powm_sec(x.get(), x.get(), e.get(), p2.get());
  mpz_sub_ui(x.get(), x.get(), 1);
  // Exact for a valid c; tdiv keeps a forged c from misusing divexact.
  mpz_tdiv_q(x.get(), x.get(), p.get());
  mpz_mul(x.get(), x.get(), h);
  mpz_mod(out, x.get(), p.get());
  x.wipe();
  e.wipe();
}

/// h = L_p((n+1)^(p-1) mod p^2)^-1 mod p.
secret_integer crt_constant(const integer& n, const integer& p,
                            const integer& p2) {
  integer g;
  mpz_add_ui(g.get(), n.get(), 1);
  secret_integer one(1), h;
  // crt_half with h = 1 gives L_p(g^(p-1) mod p^2) mod p.
  crt_half(h.get(), g.get(), p, p2, one.get());
  if (mpz_invert(h.get(), h.get(), p.get()) == 0)
    throw std::logic_error("paillier: degenerate key");
  return h;
}

/// DJN's fixed base for n (§4): h = -x^2 mod n for x uniform in Z*_n,
/// h_s = h^n mod n^2. x is not kept.
integer fixed_base_for(const integer& n, random_engine& rng) {
  auto bits = static_cast<int>(mpz_sizeinbase(n.get(), 2));
  secret_integer x, h;
  integer g;
  do {
    static_cast<integer&>(x) = random_below(rng, n, bits);
    mpz_gcd(g.get(), x.get(), n.get());
  } while (mpz_cmp_ui(g.get(), 1) != 0);
  mpz_mul(h.get(), x.get(), x.get());
  mpz_neg(h.get(), h.get());
  mpz_mod(h.get(), h.get(), n.get());
  integer n2, hs;
  mpz_mul(n2.get(), n.get(), n.get());
  mpz_powm(hs.get(), h.get(), n.get(), n2.get());
  return hs;
}

secret_integer random_prime(random_engine& rng, int bits) {
  while (true) {
    secret_integer c;
    static_cast<integer&>(c) = random_bits(rng, bits);
    // Top two bits set (so p q has exactly 2 bits bits), odd.
    mpz_setbit(c.get(), static_cast<mp_bitcnt_t>(bits - 1));
    mpz_setbit(c.get(), static_cast<mp_bitcnt_t>(bits - 2));
    mpz_setbit(c.get(), 0);
    // GMP 6.2: trial division, Baillie–PSW, then reps - 24 more
    // Miller–Rabin rounds with random bases.
    if (mpz_probab_prime_p(c.get(), 32) > 0)
      return c;
  }
}

} // namespace

private_key::private_key(public_key pub, secret_integer p, secret_integer q)
    : pub_(std::move(pub)), p_(std::move(p)), q_(std::move(q)) {
  mpz_mul(p2_.get(), p_.get(), p_.get());
  mpz_mul(q2_.get(), q_.get(), q_.get());
  hp_ = crt_constant(pub_.n(), p_, p2_);
  hq_ = crt_constant(pub_.n(), q_, q2_);
  if (mpz_invert(q_inv_p_.get(), q_.get(), p_.get()) == 0)
    throw std::logic_error("paillier: degenerate key");
}

integer private_key::decrypt(const ciphertext& c) const {
  secret_integer mp, mq;
  crt_half(mp.get(), c.c.get(), p_, p2_, hp_.get());
  crt_half(mq.get(), c.c.get(), q_, q2_, hq_.get());
  // m = m_q + q ((m_p - m_q) q^-1 mod p), in [0, n).
  integer m;
  mpz_sub(m.get(), mp.get(), mq.get());
  mpz_mul(m.get(), m.get(), q_inv_p_.get());
  mpz_mod(m.get(), m.get(), p_.get());
  mpz_mul(m.get(), m.get(), q_.get());
  mpz_add(m.get(), m.get(), mq.get());
  return centered(std::move(m), pub_.n());
}

std::vector<integer> private_key::decrypt_all(std::span<const ciphertext> cs,
                                              int threads) const {
  std::vector<integer> out(cs.size());
  auto n = static_cast<std::ptrdiff_t>(cs.size());
#pragma omp parallel for schedule(dynamic, 1)                                  \
    num_threads(team_size(threads, cs.size()))
  for (std::ptrdiff_t i = 0; i < n; ++i)
    out[static_cast<std::size_t>(i)] = decrypt(cs[static_cast<std::size_t>(i)]);
  return out;
}

integer private_key::decrypt_textbook(const ciphertext& c) const {
  const auto& n = pub_.n();
  const auto& n2 = pub_.n_squared();
  secret_integer p1, q1, lambda, x, mu;
  mpz_sub_ui(p1.get(), p_.get(), 1);
  mpz_sub_ui(q1.get(), q_.get(), 1);
  mpz_lcm(lambda.get(), p1.get(), q1.get());
  // L(x) = (x - 1) / n.
  auto l_of = [&](mpz_ptr out, mpz_srcptr base) {
    mpz_powm_sec(out, base, lambda.get(), n2.get());
    mpz_sub_ui(out, out, 1);
    mpz_tdiv_q(out, out, n.get());
  };
  integer g;
  mpz_add_ui(g.get(), n.get(), 1);
  l_of(mu.get(), g.get());
  if (mpz_invert(mu.get(), mu.get(), n.get()) == 0)
    throw std::logic_error("paillier: degenerate key");
  integer m;
  mpz_mod(x.get(), c.c.get(), n2.get());
  l_of(m.get(), x.get());
  mpz_mul(m.get(), m.get(), mu.get());
  mpz_mod(m.get(), m.get(), n.get());
  return centered(std::move(m), n);
}

std::optional<std::int64_t>
private_key::decrypt_int64(const ciphertext& c) const {
  return decrypt(c).to_int64();
}

double private_key::decrypt_fixed(const crypto::fixed_point& fp,
                                  const ciphertext& c) const {
  auto m = decrypt(c);
  if (auto v = m.to_int64())
    return fp.decode(static_cast<std::uint64_t>(*v));
  return std::ldexp(mpz_get_d(m.get()), -fp.frac_bits());
}

private_key generate_key(int bits, random_engine& rng) {
  if (bits < 256 || bits > 8192 || bits % 2 != 0)
    throw std::invalid_argument("paillier: key bits must be even and in "
                                "[256, 8192], not " +
                                std::to_string(bits));
  if (!rng)
    throw std::invalid_argument("paillier: no random engine given");
  while (true) {
    auto p = random_prime(rng, bits / 2);
    auto q = random_prime(rng, bits / 2);
    if (mpz_cmp(p.get(), q.get()) == 0)
      continue;
    integer n;
    mpz_mul(n.get(), p.get(), q.get());
    // gcd(n, (p-1)(q-1)) = 1 holds for primes of equal length; checked
    // anyway, it is what makes n+1 a valid generator.
    secret_integer phi, t, g;
    mpz_sub_ui(phi.get(), p.get(), 1);
    mpz_sub_ui(t.get(), q.get(), 1);
    mpz_mul(phi.get(), phi.get(), t.get());
    mpz_gcd(g.get(), phi.get(), n.get());
    if (mpz_cmp_ui(g.get(), 1) != 0 ||
        mpz_sizeinbase(n.get(), 2) != static_cast<std::size_t>(bits))
      continue;
    auto hs = fixed_base_for(n, rng);
    return private_key(public_key(std::move(n), std::move(hs)), std::move(p),
                       std::move(q));
  }
}

} // namespace veil::protocols::paillier
