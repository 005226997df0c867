// Paillier with GMP (spec feverless §10.5, §15.1): homomorphic sums of many
// signed values decrypt exactly, at 1024 and 2048 bits; fixed-point sums
// decrypt to what crypto::fixed_point's modular sum decodes; another key
// does not decrypt; ciphertexts and public keys round-trip through their
// fixed-width big-endian bytes; key generation is reproducible from a seed.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <map>
#include <memory>
#include <sstream>
#include <type_traits>

#include "protocols/crypto/random.hpp"
#include "protocols/paillier/paillier.hpp"
#include "tests/support/random_data.hpp"

namespace crypto = veil::protocols::crypto;
namespace pl = veil::protocols::paillier;
using pl::ciphertext;
using pl::integer;
using pl::private_key;
using pl::random_engine;

namespace {

random_engine seeded(std::uint64_t seed) {
  return random_engine(crypto::seeded_random(seed));
}

/// One key per (bits, seed), generated once: 2048-bit keys take a while.
const private_key& key(int bits, std::uint64_t seed) {
  static std::map<std::pair<int, std::uint64_t>, private_key> keys;
  auto it = keys.find({bits, seed});
  if (it == keys.end()) {
    auto rng = seeded(seed);
    it = keys.emplace(std::pair{bits, seed}, pl::generate_key(bits, rng)).first;
  }
  return it->second;
}

template <class T, class = void>
struct streamable : std::false_type {};
template <class T>
struct streamable<T, std::void_t<decltype(std::declval<std::ostream&>()
                                          << std::declval<const T&>())>>
    : std::true_type {};

void sums_decrypt_exactly(int bits) {
  const auto& sk = key(bits, 1);
  const auto& pk = sk.public_part();
  BOOST_TEST(pk.bits() == bits);
  BOOST_TEST(pk.ciphertext_bytes() == static_cast<std::size_t>(bits / 4));
  auto rng = seeded(2);
  veil::test::rng data(3);
  // 300 signed 62-bit values: the exact sum needs 71 bits, far beyond
  // int64 but far below n/2.
  integer expected;
  auto acc = pk.zero();
  for (int i = 0; i < 300; ++i) {
    auto v = static_cast<std::int64_t>(data.next() >> 2);
    if (data.chance(0.5))
      v = -v;
    mpz_add(expected.get(), expected.get(), integer::from_int64(v).get());
    pk.add_to(acc, pk.encrypt(v, rng));
  }
  BOOST_TEST((sk.decrypt(acc) == expected));
  // A negative total of small values, and the int64 accessor.
  auto s = pk.zero();
  std::int64_t total = 0;
  for (int i = 0; i < 200; ++i) {
    auto v = static_cast<std::int64_t>(data.below(1000)) - 700;
    total += v;
    s = pk.add(s, pk.encrypt(v, rng));
  }
  BOOST_TEST(total < 0);
  BOOST_TEST(sk.decrypt_int64(s).value() == total);
  // The extremes of the centered lift: (n-1)/2 and -(n-1)/2.
  integer half;
  mpz_sub_ui(half.get(), pk.n().get(), 1);
  mpz_fdiv_q_2exp(half.get(), half.get(), 1);
  BOOST_TEST((sk.decrypt(pk.encrypt(half, rng)) == half));
  integer neg;
  mpz_neg(neg.get(), half.get());
  BOOST_TEST((sk.decrypt(pk.encrypt(neg, rng)) == neg));
  // n/2 rounded up no longer fits.
  integer over;
  mpz_add_ui(over.get(), half.get(), 1);
  BOOST_CHECK_THROW(pk.encrypt(over, rng), std::invalid_argument);
}

} // namespace

BOOST_AUTO_TEST_SUITE(paillier)
BOOST_AUTO_TEST_SUITE(paillier)

BOOST_AUTO_TEST_CASE(sums_of_signed_values_decrypt_exactly_at_1024_bits) {
  sums_decrypt_exactly(1024);
}

BOOST_AUTO_TEST_CASE(sums_of_signed_values_decrypt_exactly_at_2048_bits) {
  sums_decrypt_exactly(2048);
}

BOOST_AUTO_TEST_CASE(fixed_point_sums_match_the_modular_sum) {
  // What the AHE baseline relies on: the decrypted sum of encrypted
  // fixed-point encodings is the fixed_point decoding of the mod-2^64 sum
  // of the same encodings, bit for bit.
  const auto& sk = key(1024, 1);
  const auto& pk = sk.public_part();
  auto rng = seeded(4);
  veil::test::rng data(5);
  for (int frac : {16, 32}) {
    crypto::fixed_point fp(frac);
    auto acc = pk.zero();
    std::uint64_t modular = 0;
    for (int i = 0; i < 400; ++i) {
      double x = data.uniform(-1, 1) * (i % 7 == 0 ? 50.0 : 1.0);
      modular += fp.encode(x).value();
      pk.add_to(acc, pk.encrypt_fixed(fp, x, rng));
    }
    BOOST_TEST(sk.decrypt_fixed(fp, acc) == fp.decode(modular));
    BOOST_TEST(sk.decrypt(acc).low64() == modular);
  }
  crypto::fixed_point fp(32);
  BOOST_CHECK_THROW(pk.encrypt_fixed(fp, 1e300, rng), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(packed_sums_decrypt_slot_by_slot) {
  // SecureBoost's packing: sums of packed plaintexts are the slot-wise sums
  // mod 2^64, negative values (two's complement) and the largest words
  // included, at both key sizes, up to the summands the packing was made
  // for.
  for (int bits : {1024, 2048}) {
    const auto& sk = key(bits, 1);
    const auto& pk = sk.public_part();
    auto rng = seeded(9);
    for (std::size_t summands : {1u, 2u, 7u, 16u}) {
      pl::packing pack(pk, summands);
      unsigned carry = summands <= 1   ? 0
                       : summands <= 2 ? 1
                       : summands <= 8 ? 3
                                       : 4;
      BOOST_TEST(pack.slot_bits() == 64 + carry);
      BOOST_TEST(pack.slots() ==
                 static_cast<std::size_t>(bits - 2) / pack.slot_bits());
      std::vector<std::uint64_t> sums(pack.slots(), 0);
      auto acc = pk.zero();
      veil::test::rng data(bits + summands);
      for (std::size_t s = 0; s < summands; ++s) {
        std::vector<std::uint64_t> v(pack.slots());
        for (std::size_t j = 0; j < v.size(); ++j) {
          auto x = static_cast<std::int64_t>(data.uniform(-1e15, 1e15));
          v[j] = j == 0   ? ~std::uint64_t{0} // the largest word
                 : j == 1 ? 0
                          : static_cast<std::uint64_t>(x);
          sums[j] += v[j];
        }
        pk.add_to(acc, pk.encrypt(pack.pack(v), rng));
      }
      std::vector<std::uint64_t> got(pack.slots());
      pack.unpack(sk.decrypt(acc), got);
      BOOST_TEST(got == sums, bits << " bits, " << summands << " summands");
      // Fewer values than slots: the rest are zero.
      std::vector<std::uint64_t> three = {5, ~std::uint64_t{0}, 7}, back(3);
      pack.unpack(sk.decrypt(pk.encrypt(pack.pack(three), rng)), back);
      BOOST_TEST(back == three);
    }
  }
}

BOOST_AUTO_TEST_CASE(shifted_ciphertexts_pack_sums_into_higher_slots) {
  // What HE-XGBoost's passive party does with its histogram slots: the
  // ciphertext of a packed sum, shifted up by whole slots and added to
  // another, decrypts to both sums in their own slots; a shift multiplies
  // a signed plaintext by 2^bits.
  const auto& sk = key(1024, 1);
  const auto& pk = sk.public_part();
  auto rng = seeded(10);
  pl::packing pack(pk, 16);
  std::vector<std::uint64_t> low = {~std::uint64_t{0}, 3},
                             high = {12345, ~std::uint64_t{1}};
  auto c = pk.encrypt(pack.pack(high), rng);
  pk.shift_to(c, 2 * pack.slot_bits());
  pk.add_to(c, pk.encrypt(pack.pack(low), rng));
  std::vector<std::uint64_t> got(4);
  pack.unpack(sk.decrypt(c), got);
  BOOST_TEST(got ==
             (std::vector<std::uint64_t>{low[0], low[1], high[0], high[1]}));
  auto d = pk.encrypt(-5, rng);
  pk.shift_to(d, 10);
  BOOST_TEST(sk.decrypt(d).to_int64().value_or(0) == -5120);
}

BOOST_AUTO_TEST_CASE(crt_decryption_is_the_textbook_decryption) {
  // Fresh encryptions, sums, packed plaintexts and arbitrary residues mod
  // n^2 (which decrypt to garbage, the same garbage both ways).
  for (int bits : {1024, 2048}) {
    const auto& sk = key(bits, 1);
    const auto& pk = sk.public_part();
    auto rng = seeded(11);
    std::vector<ciphertext> cs;
    for (std::int64_t m : {0LL, 1LL, -1LL, 123456789LL, -(1LL << 62)})
      cs.push_back(pk.encrypt(m, rng));
    cs.push_back(pk.add(cs[3], cs[4]));
    pl::packing pack(pk, 3);
    cs.push_back(pk.encrypt(
        pack.pack(std::vector<std::uint64_t>(pack.slots(), ~std::uint64_t{0})),
        rng));
    for (int k = 0; k < 3; ++k) {
      ciphertext r;
      mpz_set(r.c.get(), pl::random_bits(rng, 2 * bits - 1).get());
      mpz_mod(r.c.get(), r.c.get(), pk.n_squared().get());
      cs.push_back(r);
    }
    for (std::size_t i = 0; i < cs.size(); ++i)
      BOOST_TEST((sk.decrypt(cs[i]) == sk.decrypt_textbook(cs[i])),
                 bits << " bits, ciphertext " << i);
  }
}

BOOST_AUTO_TEST_CASE(packing_refuses_what_does_not_fit) {
  const auto& sk = key(1024, 1);
  const auto& pk = sk.public_part();
  auto rng = seeded(10);
  pl::packing pack(pk, 4); // 66-bit slots: sums of 4 words at most
  BOOST_TEST(pack.slots() == 1022u / 66u);
  std::vector<std::uint64_t> full(pack.slots(), ~std::uint64_t{0});
  BOOST_CHECK_THROW(pack.pack(std::vector<std::uint64_t>(pack.slots() + 1)),
                    std::invalid_argument);
  std::vector<std::uint64_t> out(pack.slots());
  BOOST_CHECK_THROW(pack.unpack(integer(-1), out), std::invalid_argument);
  std::vector<std::uint64_t> too_many(pack.slots() + 1);
  BOOST_CHECK_THROW(pack.unpack(integer(1), too_many), std::invalid_argument);
  // Four full plaintexts fit; five overflow the top slot, which unpack
  // sees. (A carry out of a lower slot would corrupt its neighbour
  // silently: the summand bound is the caller's to keep; FEVERLESS's AHE
  // sums n - 1 replies and makes its packing for exactly that.)
  auto acc = pk.zero();
  for (int s = 0; s < 4; ++s)
    pk.add_to(acc, pk.encrypt(pack.pack(full), rng));
  BOOST_CHECK_NO_THROW(pack.unpack(sk.decrypt(acc), out));
  BOOST_TEST(out[0] == std::uint64_t{0} - 4); // 4 (2^64 - 1) mod 2^64
  pk.add_to(acc, pk.encrypt(pack.pack(full), rng));
  BOOST_CHECK_THROW(pack.unpack(sk.decrypt(acc), out), std::invalid_argument);
  BOOST_CHECK_THROW(pl::packing(pk, 0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(another_key_does_not_decrypt) {
  for (int bits : {1024, 2048}) {
    const auto& a = key(bits, 1);
    const auto& b = key(bits, 6);
    BOOST_TEST(!(a.public_part() == b.public_part()));
    auto rng = seeded(7);
    std::int64_t v = 123456789;
    auto c = a.public_part().encrypt(v, rng);
    BOOST_TEST(a.decrypt_int64(c).value() == v);
    // Read as b's ciphertext: either out of b's range or garbage.
    auto bytes = a.public_part().write(c);
    auto as_b = b.public_part().read(bytes);
    if (as_b) {
      auto m = b.decrypt(*as_b);
      BOOST_TEST(!(m == integer::from_int64(v)));
      BOOST_TEST(!m.to_int64()); // a uniform element of Z_n: huge
    }
    // Decrypting a's ciphertext object directly with b: also garbage.
    auto m = b.decrypt(c);
    BOOST_TEST(!(m == integer::from_int64(v)));
  }
}

BOOST_AUTO_TEST_CASE(ciphertexts_and_keys_round_trip_through_bytes) {
  for (int bits : {1024, 2048}) {
    const auto& sk = key(bits, 1);
    const auto& pk = sk.public_part();
    auto rng = seeded(8);
    auto c = pk.encrypt(-42, rng);
    auto bytes = pk.write(c);
    BOOST_TEST(bytes.size() == static_cast<std::size_t>(bits / 4));
    auto back = pk.read(bytes);
    BOOST_REQUIRE(back);
    BOOST_TEST((back->c == c.c));
    BOOST_TEST(sk.decrypt_int64(*back).value() == -42);
    // Fixed width: a small value keeps its leading zeros.
    auto one = pk.write(pk.zero());
    BOOST_TEST(one.size() == bytes.size());
    BOOST_TEST(one.back() == 1);
    BOOST_TEST(std::all_of(one.begin(), one.end() - 1,
                           [](std::uint8_t x) { return x == 0; }));
    BOOST_TEST(sk.decrypt_int64(*pk.read(one)).value() == 0);
    // Refused: wrong length, zero, n^2 and above.
    BOOST_TEST(!pk.read(std::span(bytes).first(bytes.size() - 1)));
    std::vector<std::uint8_t> zero(bytes.size(), 0);
    BOOST_TEST(!pk.read(zero));
    std::vector<std::uint8_t> ff(bytes.size(), 0xFF);
    BOOST_TEST(!pk.read(ff));
    std::vector<std::uint8_t> tiny(8);
    BOOST_CHECK_THROW(pk.write(c, tiny), std::invalid_argument);
    // The public key: n in exactly bits/8 bytes, then h_s in twice that.
    auto kb = pk.to_bytes();
    auto nb = static_cast<std::size_t>(bits / 8);
    BOOST_TEST(kb.size() == 3 * nb);
    BOOST_TEST(pk.public_bytes() == 3 * nb);
    auto pk2 = pl::public_key::from_bytes(kb, bits);
    BOOST_REQUIRE(pk2);
    BOOST_TEST((*pk2 == pk));
    BOOST_TEST((pk2->fixed_base() == pk.fixed_base()));
    BOOST_TEST(sk.decrypt_int64(pk2->encrypt(99, rng)).value() == 99);
    BOOST_TEST(!pl::public_key::from_bytes(kb, bits + 8));
    BOOST_TEST(!pl::public_key::from_bytes(std::span(kb).first(nb), bits));
    auto even = kb;
    even[nb - 1] &= 0xFE;
    BOOST_TEST(!pl::public_key::from_bytes(even, bits));
    auto shorter = kb;
    shorter[0] = 0;
    BOOST_TEST(!pl::public_key::from_bytes(shorter, bits));
    // A fixed base of 1 (deterministic ciphertexts), n^2 or above, or one
    // sharing n's factors is refused.
    auto with_base = [&](const integer& hs) {
      auto b = kb;
      std::fill(b.begin() + static_cast<std::ptrdiff_t>(nb), b.end(), 0);
      std::size_t count = 0;
      auto need = (mpz_sizeinbase(hs.get(), 2) + 7) / 8;
      mpz_export(b.data() + b.size() - need, &count, 1, 1, 1, 0, hs.get());
      return pl::public_key::from_bytes(b, bits);
    };
    BOOST_TEST(!with_base(integer(1)));
    BOOST_TEST(!with_base(integer(0)));
    BOOST_TEST(!with_base(pk.n_squared()));
    BOOST_TEST(!with_base(pk.n()));
    BOOST_TEST(with_base(integer(2)).has_value());
    std::vector<std::uint8_t> ones(kb.size(), 0xFF);
    std::copy_n(kb.begin(), nb, ones.begin());
    BOOST_TEST(!pl::public_key::from_bytes(ones, bits));
  }
}

BOOST_AUTO_TEST_CASE(fixed_base_encryption_is_h_s_to_a_short_exponent) {
  for (int bits : {1024, 2048}) {
    const auto& sk = key(bits, 1);
    const auto& pk = sk.public_part();
    // h_s is an n-th residue: it decrypts to 0 (so h_s^a does too).
    BOOST_TEST(sk.decrypt_int64(ciphertext{pk.fixed_base()}).value() == 0);
    BOOST_TEST(pk.exponent_bits() == bits / 2);
    // The reference: (1 + m n) h_s^a mod n^2 with GMP's powm, a from the
    // same words of an identically seeded engine, cut to exponent_bits().
    for (std::int64_t m :
         {std::int64_t{0}, std::int64_t{-5}, std::int64_t{77}}) {
      auto rng = seeded(40 + static_cast<std::uint64_t>(m + 5));
      auto same = seeded(40 + static_cast<std::uint64_t>(m + 5));
      auto c = pk.encrypt(m, rng);
      std::vector<std::uint64_t> a(static_cast<std::size_t>(bits / 2 + 63) /
                                   64);
      for (auto& w : a)
        w = same();
      integer e, expect, g;
      mpz_import(e.get(), a.size(), -1, sizeof(std::uint64_t), 0, 0, a.data());
      mpz_fdiv_r_2exp(e.get(), e.get(), static_cast<mp_bitcnt_t>(bits / 2));
      mpz_powm(expect.get(), pk.fixed_base().get(), e.get(),
               pk.n_squared().get());
      auto mm = integer::from_int64(m);
      mpz_mod(g.get(), mm.get(), pk.n().get());
      mpz_mul(g.get(), g.get(), pk.n().get());
      mpz_add_ui(g.get(), g.get(), 1);
      mpz_mul(expect.get(), expect.get(), g.get());
      mpz_mod(expect.get(), expect.get(), pk.n_squared().get());
      BOOST_TEST((c.c == expect), bits << " bits, m = " << m);
      BOOST_TEST(sk.decrypt_int64(c).value() == m);
    }
    // Textbook and fixed-base ciphertexts add up; a key without a fixed
    // base encrypts textbook.
    auto rng = seeded(50);
    auto sum = pk.add(pk.encrypt(20, rng),
                      pk.encrypt_textbook(integer::from_int64(-3), rng));
    BOOST_TEST(sk.decrypt_int64(sum).value() == 17);
    pl::public_key bare(pk.n());
    BOOST_TEST((bare.fixed_base() == integer(0)));
    BOOST_TEST(sk.decrypt_int64(bare.encrypt(-9, rng)).value() == -9);
    BOOST_CHECK_THROW(bare.to_bytes(), std::logic_error);
  }
}

BOOST_AUTO_TEST_CASE(many_at_once_on_threads_equal_one_at_a_time) {
  const auto& sk = key(1024, 1);
  const auto& pk = sk.public_part();
  std::vector<integer> ms;
  for (std::int64_t m = -20; m < 20; m += 3)
    ms.push_back(integer::from_int64(m));
  auto one_rng = seeded(60);
  std::vector<ciphertext> each;
  for (const auto& m : ms)
    each.push_back(pk.encrypt(m, one_rng));
  for (int threads : {1, 2, 0}) {
    auto rng = seeded(60);
    auto all = pk.encrypt_all(ms, rng, threads);
    BOOST_REQUIRE_EQUAL(all.size(), ms.size());
    for (std::size_t i = 0; i < ms.size(); ++i)
      BOOST_TEST((all[i].c == each[i].c), threads << " threads, #" << i);
    auto back = sk.decrypt_all(all, threads);
    for (std::size_t i = 0; i < ms.size(); ++i)
      BOOST_TEST((back[i] == ms[i]));
  }
  // What encrypt() refuses, encrypt_all() refuses before any thread runs.
  std::vector<integer> too_big{pk.n()};
  auto rng = seeded(61);
  BOOST_CHECK_THROW(pk.encrypt_all(too_big, rng, 2), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(encryption_is_randomized_and_keys_follow_the_seed) {
  const auto& sk = key(1024, 1);
  const auto& pk = sk.public_part();
  auto rng = seeded(9);
  auto c1 = pk.encrypt(5, rng);
  auto c2 = pk.encrypt(5, rng);
  BOOST_TEST(!(c1.c == c2.c));
  // Same seed, same key; another seed, another key.
  auto r1 = seeded(1);
  auto again = pl::generate_key(1024, r1);
  BOOST_TEST((again.public_part() == pk));
  BOOST_TEST(!(key(1024, 6).public_part() == pk));
  // Secrets have no stream operator, on purpose.
  static_assert(!streamable<private_key>::value);
  static_assert(!streamable<pl::secret_integer>::value);
  static_assert(!std::is_copy_constructible_v<private_key>);
  BOOST_CHECK_THROW(pl::generate_key(1023, r1), std::invalid_argument);
  BOOST_CHECK_THROW(pl::generate_key(128, r1), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(system_random_keys_work) {
  auto sys = std::make_shared<crypto::system_random>();
  random_engine rng([sys] { return (*sys)(); });
  auto sk = pl::generate_key(1024, rng);
  const auto& pk = sk.public_part();
  BOOST_TEST(pk.bits() == 1024);
  auto c = pk.add(pk.encrypt(-7, rng), pk.encrypt(10, rng));
  BOOST_TEST(sk.decrypt_int64(c).value() == 3);
  // Costs, for the record (not checked).
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < 50; ++i)
    c = pk.encrypt(i, rng);
  auto t1 = std::chrono::steady_clock::now();
  for (int i = 0; i < 50; ++i)
    (void)sk.decrypt(c);
  auto t2 = std::chrono::steady_clock::now();
  using us = std::chrono::duration<double, std::micro>;
  double enc = us(t1 - t0).count() / 50, dec = us(t2 - t1).count() / 50;
  BOOST_TEST_MESSAGE("paillier-1024: encrypt " << enc << " us, decrypt " << dec
                                               << " us");
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
