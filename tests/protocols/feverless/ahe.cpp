// The AHE baseline (spec feverless §10.5): the feverless flow with its
// election and noise injection, but Paillier-encrypted partial sums to the
// source instead of masks. With the noise off it builds the plain
// protocol's model; the source's aggregate is the plaintext sum plus
// exactly the selected noise (the blindings r cancel mod 2^64 as in
// feverless); each value on the wire costs one ciphertext (256 B at 1024
// bits, 512 B at 2048); corrupt ciphertexts are refused.
#include "tests/protocols/feverless/harness.hpp"

#include "learners/input_error.hpp"

using namespace veil;
using namespace veil::test::fvl;

namespace {

params ahe_params(int trees, int depth, std::uint64_t session) {
  return session_params(mode::ahe, trees, depth, session);
}

/// Trains 3 AHE clients with `tamper`; the refusal ("" if none).
std::string ahe_refusal(const interceptor& tamper) {
  auto d = synthetic(90, 6, 2);
  auto f =
      make_federation(d, ahe_params(1, 2, 5), 3, balanced_owners(90, 3, 2), 2);
  return training_refusal(f, 2, tamper);
}

} // namespace

BOOST_AUTO_TEST_SUITE(feverless)
BOOST_AUTO_TEST_SUITE(ahe)

BOOST_AUTO_TEST_CASE(noise_off_equals_plain) {
  // Election, redo and blinding all run; the r cancel in the decrypted sum
  // mod 2^64; only the fixed-point rounding of each g_i, h_i differs from
  // plain mode.
  for (std::size_t n : {2u, 3u, 4u}) {
    auto d = synthetic(100, 5, 80 + n);
    auto owner = random_owners(100, n, 80 + n);
    auto pa = ahe_params(2, 2, 9);
    pa.noise = false;
    auto ah = train_session(d, pa, n, owner, 80 + n);
    params pp = pa;
    pp.protocol = mode::plain;
    auto pl = train_session(d, pp, n, owner, 80 + n);
    BOOST_TEST(ah.clients[0]->sigma() == 0.0);
    require_same_models(ah, pl);
    // Nothing went through masks.
    for (const auto& sent : ah.sent) {
      BOOST_TEST(sent.count("masked") == 0u);
      BOOST_TEST(sent.count("encrypted") == 1u);
    }
  }
}

BOOST_AUTO_TEST_CASE(aggregates_are_the_plaintext_plus_the_selected_noise) {
  auto p = ahe_params(1, 2, 10);
  p.test_hooks = true;
  auto d = synthetic(120, 8, 11);
  auto f = train_session(d, p, 4, balanced_owners(120, 4, 11), 11);
  auto draws = check_aggregates(f);
  for (const auto& [qid, k] : draws)
    BOOST_TEST_REQUIRE(k == 1); // fixed1
  // The leader of every query is not its source.
  for (int s = 0; s < 4; ++s)
    for (const auto& t : f.clients[s]->traces())
      BOOST_TEST_REQUIRE(t.leader != s);
  auto r = f.clients[0]->privacy();
  BOOST_TEST(r.protected_sums);
  BOOST_TEST(f.clients[0]->warning().empty());
}

BOOST_AUTO_TEST_CASE(ciphertexts_carry_packed_values) {
  auto d = synthetic(80, 4, 12);
  auto owner = balanced_owners(80, 3, 12);
  for (int bits : {1024, 2048}) {
    auto p = ahe_params(1, bits == 1024 ? 2 : 1, 12);
    p.paillier_bits = bits;
    auto f = train_session(d, p, 3, owner, 12);
    double w = 2.0 * bits / 8;
    for (std::size_t k = 0; k < f.clients.size(); ++k) {
      const auto& c = f.clients[k];
      auto answered = c->privacy().queries_answered;
      BOOST_REQUIRE(answered > 0u);
      auto bytes = static_cast<double>(f.sent[k].at("encrypted"));
      double per_value = bytes / (2.0 * static_cast<double>(answered));
      BOOST_TEST_MESSAGE(bits << "-bit: " << per_value << " bytes per value");
      // Packed: slots() values per ciphertext (sums of two replies: 65-bit
      // slots, 15 at 1024 bits, 31 at 2048). Each (level, source) message
      // ends with at most one partly filled ciphertext, and has a header.
      double slots = std::floor((bits - 2) / 65.0);
      double values = 2.0 * static_cast<double>(answered);
      double messages = p.trees * p.max_depth * 2.0;
      BOOST_TEST(bytes >= values / slots * w);
      BOOST_TEST(bytes <= (values / slots + messages) * w + 32 * messages);
      BOOST_TEST(per_value < w / 2);
      // The key announcement carries n and the fixed base h_s (bits/8 and
      // bits/4 bytes, after their length) once per peer, beside three
      // counts, a digest, a key, a signature and the two hash-chain tips of
      // the default election (64 bytes, after their length).
      auto announce = f.sent[k].at("key_announce");
      auto n_bytes = static_cast<std::size_t>(3 * bits / 8);
      BOOST_TEST(announce ==
                 2 * (12 + 32 + 32 + 64 +
                      veil::messages::byte_counter::varbyte_size(n_bytes) +
                      n_bytes + veil::messages::byte_counter::varbyte_size(64) +
                      64));
    }
  }
}

BOOST_AUTO_TEST_CASE(corrupt_ciphertexts_are_refused) {
  BOOST_TEST(ahe_refusal({}) == "");
  // A flipped bit: still a residue mod n^2, decrypts to garbage, which does
  // not fit the packing's slots.
  auto flip = std::make_shared<bool>(false);
  auto e = ahe_refusal([flip](int from, int to, message& m) {
    auto* x = std::get_if<encrypted_sums>(&m);
    if (!x || from != 1 || to != 0 || *flip || x->g.empty())
      return;
    x->g[100] ^= 0x10;
    *flip = true;
  });
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "party 0 refused at encrypted"));
  BOOST_TEST(contains(e, "does not fit its slots"));
  // Not below n^2.
  auto big = std::make_shared<bool>(false);
  e = ahe_refusal([big](int from, int to, message& m) {
    auto* x = std::get_if<encrypted_sums>(&m);
    if (!x || from != 2 || to != 1 || *big || x->g.empty())
      return;
    std::fill(x->g.begin(), x->g.begin() + 256, 0xFF);
    *big = true;
  });
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "not a ciphertext"));
  // A short reply.
  auto cut = std::make_shared<bool>(false);
  e = ahe_refusal([cut](int from, int to, message& m) {
    auto* x = std::get_if<encrypted_sums>(&m);
    if (!x || from != 0 || to != 2 || *cut || x->g.empty())
      return;
    x->g.pop_back();
    *cut = true;
  });
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "bytes of ciphertexts"));
  // The Paillier key is signed with the announcement.
  auto key = std::make_shared<bool>(false);
  e = ahe_refusal([key](int from, int, message& m) {
    auto* x = std::get_if<key_announce>(&m);
    if (!x || from != 1 || *key)
      return;
    x->paillier_key[5] ^= 1;
    *key = true;
  });
  BOOST_TEST_INFO(e);
  BOOST_TEST(contains(e, "bad signature"));
}

BOOST_AUTO_TEST_CASE(threads_change_nothing_but_the_time) {
  // Encryption and decryption on 3 threads: the same ciphertexts (the
  // exponents are drawn in order first), so the same noisy model and the
  // same bytes as on one.
  auto d = synthetic(100, 5, 31);
  auto owner = random_owners(100, 3, 31);
  auto one = ahe_params(2, 3, 12);
  one.paillier_threads = 1;
  auto three = one;
  three.paillier_threads = 3;
  auto a = train_session(d, one, 3, owner, 31);
  auto b = train_session(d, three, 3, owner, 31);
  require_same_models(a, b, 0.0);
  BOOST_TEST(a.sent[1].at("encrypted") == b.sent[1].at("encrypted"));
  BOOST_TEST(one.digest() == three.digest()); // not the protocol's
}

BOOST_AUTO_TEST_CASE(parameters_are_checked_and_digested) {
  params p;
  p.paillier_threads = -1;
  BOOST_CHECK_THROW(p.validate(), input_error);
  p.paillier_threads = 0; // every core
  p.paillier_bits = 1536;
  BOOST_CHECK_THROW(p.validate(), input_error);
  p.paillier_bits = 1024;
  p.validate();
  params q;
  BOOST_TEST(q.paillier_bits == 2048); // the default
  BOOST_TEST(p.digest() != q.digest());
  q.paillier_bits = 1024;
  BOOST_TEST(p.digest() == q.digest());
  q.election = election_scope::per_batch;
  BOOST_TEST(p.digest() != q.digest());
  BOOST_TEST(to_string(mode::ahe) == "ahe");
  BOOST_TEST(to_string(election_scope::per_batch) == "per_batch");
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
