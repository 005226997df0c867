// Speed of Paillier (protocols/paillier/) on one thread: encryption with
// the key's fixed base (h_s^a, a of half n's bits, from its table) against
// the textbook r^n, in the same process; CRT decryption; the homomorphic
// addition; and building a key's fixed-base table (what a receiver pays
// once per peer key). At 1,024 and 2,048 bits, with the production CSPRNG;
// 64 encryptions and decryptions at once on one thread and on every core
// (encrypt_all, decrypt_all: items_per_second).
//
//   cmake --build build --target veil-bench-paillier
//   build/veil-bench-paillier [--benchmark_min_time=0.5]
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "protocols/crypto/random.hpp"
#include "protocols/paillier/paillier.hpp"

namespace crypto = veil::protocols::crypto;
namespace pl = veil::protocols::paillier;

namespace {

pl::random_engine system_engine() {
  auto g = std::make_shared<crypto::system_random>();
  return [g] { return (*g)(); };
}

/// One key per size for the whole run (generating one takes seconds).
const pl::private_key& key(int bits) {
  static std::map<int, pl::private_key> keys;
  auto it = keys.find(bits);
  if (it == keys.end()) {
    auto rng = system_engine();
    it = keys.emplace(bits, pl::generate_key(bits, rng)).first;
  }
  return it->second;
}

/// A packed plaintext of FEVERLESS's size: every slot filled.
pl::integer full_plaintext(const pl::public_key& pk) {
  pl::packing pack(pk, 3);
  std::vector<std::uint64_t> v(pack.slots(), 0x0123456789abcdefULL);
  return pack.pack(v);
}

void encrypt_fixed_base(benchmark::State& state) {
  const auto& pk = key(static_cast<int>(state.range(0))).public_part();
  auto rng = system_engine();
  auto m = full_plaintext(pk);
  for (auto _ : state)
    benchmark::DoNotOptimize(pk.encrypt(m, rng));
}

void encrypt_textbook(benchmark::State& state) {
  const auto& pk = key(static_cast<int>(state.range(0))).public_part();
  auto rng = system_engine();
  auto m = full_plaintext(pk);
  for (auto _ : state)
    benchmark::DoNotOptimize(pk.encrypt_textbook(m, rng));
}

/// 64 plaintexts at once on range(1) threads (0: every core): per item.
void encrypt_all(benchmark::State& state) {
  const auto& pk = key(static_cast<int>(state.range(0))).public_part();
  auto rng = system_engine();
  std::vector<pl::integer> ms(64, full_plaintext(pk));
  for (auto _ : state)
    benchmark::DoNotOptimize(
        pk.encrypt_all(ms, rng, static_cast<int>(state.range(1))));
  state.SetItemsProcessed(state.iterations() * 64);
}

void decrypt_all(benchmark::State& state) {
  const auto& sk = key(static_cast<int>(state.range(0)));
  auto rng = system_engine();
  std::vector<pl::ciphertext> cs(
      64, sk.public_part().encrypt(full_plaintext(sk.public_part()), rng));
  for (auto _ : state)
    benchmark::DoNotOptimize(
        sk.decrypt_all(cs, static_cast<int>(state.range(1))));
  state.SetItemsProcessed(state.iterations() * 64);
}

void decrypt_crt(benchmark::State& state) {
  const auto& sk = key(static_cast<int>(state.range(0)));
  auto rng = system_engine();
  auto c = sk.public_part().encrypt(full_plaintext(sk.public_part()), rng);
  for (auto _ : state)
    benchmark::DoNotOptimize(sk.decrypt(c));
}

void add(benchmark::State& state) {
  const auto& pk = key(static_cast<int>(state.range(0))).public_part();
  auto rng = system_engine();
  auto acc = pk.zero();
  auto c = pk.encrypt(7, rng);
  for (auto _ : state)
    pk.add_to(acc, c);
}

void build_table(benchmark::State& state) {
  const auto& pk = key(static_cast<int>(state.range(0))).public_part();
  for (auto _ : state)
    benchmark::DoNotOptimize(pl::public_key(pk.n(), pk.fixed_base()));
}

} // namespace

BENCHMARK(encrypt_fixed_base)
    ->Arg(1024)
    ->Arg(2048)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(encrypt_textbook)
    ->Arg(1024)
    ->Arg(2048)
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(encrypt_all)
    ->Args({2048, 1})
    ->Args({2048, 0})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(decrypt_all)
    ->Args({2048, 1})
    ->Args({2048, 0})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(decrypt_crt)->Arg(1024)->Arg(2048)->Unit(benchmark::kMicrosecond);
BENCHMARK(add)->Arg(1024)->Arg(2048)->Unit(benchmark::kMicrosecond);
BENCHMARK(build_table)->Arg(1024)->Arg(2048)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
