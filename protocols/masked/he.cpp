#include "protocols/masked/he.hpp"

#include <algorithm>
#include <stdexcept>

namespace veil::protocols::masked {

crypto::fixed_point he_fixed_point() {
  return crypto::fixed_point(40);
}

bool fits_rows(std::size_t rows) {
  return he_fixed_point().fits(static_cast<double>(rows), 1.0);
}

std::vector<std::uint8_t>
encrypt_gradients(const paillier::public_key& pk, const paillier::packing& pack,
                  std::span<const learners::grad_pair> grads,
                  paillier::random_engine& rng, int threads) {
  auto fp = he_fixed_point();
  std::vector<paillier::integer> plain;
  plain.reserve(grads.size());
  for (const auto& x : grads) {
    auto g = fp.encode(x.g), h = fp.encode(x.h);
    if (!g || !h)
      throw std::invalid_argument("HE-XGBoost: a gradient is not finite or "
                                  "too large for the fixed point");
    std::uint64_t slots[2] = {*g, *h};
    plain.push_back(pack.pack(slots));
  }
  auto cts = pk.encrypt_all(plain, rng, threads);
  std::vector<std::uint8_t> out(cts.size() * pk.ciphertext_bytes());
  for (std::size_t i = 0; i < cts.size(); ++i)
    pk.write(cts[i],
             std::span<std::uint8_t>(out.data() + i * pk.ciphertext_bytes(),
                                     pk.ciphertext_bytes()));
  return out;
}

std::optional<std::vector<paillier::ciphertext>>
read_ciphertexts(const paillier::public_key& pk,
                 std::span<const std::uint8_t> bytes, std::size_t n) {
  auto size = pk.ciphertext_bytes();
  if (bytes.size() != n * size)
    return std::nullopt;
  std::vector<paillier::ciphertext> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto c = pk.read(bytes.subspan(i * size, size));
    if (!c)
      return std::nullopt;
    out.push_back(std::move(*c));
  }
  return out;
}

std::size_t slots_per_ciphertext(const paillier::packing& pack) {
  return std::max<std::size_t>(1, pack.slots() / 2);
}

std::size_t histogram_ciphertexts(const paillier::packing& pack,
                                  std::size_t slots) {
  auto per = slots_per_ciphertext(pack);
  return (slots + per - 1) / per;
}

void encrypted_histogram(const paillier::public_key& pk,
                         const paillier::packing& pack,
                         std::span<const paillier::ciphertext> rows_ct,
                         const learners::bin_matrix& bins,
                         std::span<const std::uint32_t> rows,
                         std::vector<std::uint8_t>& out, int threads) {
  const auto& layout = bins.layout();
  std::vector<paillier::ciphertext> slots(layout.slots(), pk.zero());
  // Feature by feature on the threads: each owns its slots.
  auto features = static_cast<std::ptrdiff_t>(layout.features());
  auto team = std::max(1, std::min<int>(threads, static_cast<int>(features)));
#pragma omp parallel for num_threads(team) schedule(dynamic)
  for (std::ptrdiff_t f = 0; f < features; ++f) {
    auto feature = static_cast<std::size_t>(f);
    for (auto r : rows)
      pk.add_to(slots[layout.offset(feature) +
                      static_cast<std::uint32_t>(bins.bin(r, feature))],
                rows_ct[r]);
  }
  // Horner over each group of slots: the last slot ends up highest.
  auto per = slots_per_ciphertext(pack);
  auto count = histogram_ciphertexts(pack, slots.size());
  auto shift = 2 * pack.slot_bits();
  auto base = out.size();
  auto size = pk.ciphertext_bytes();
  out.resize(base + count * size);
  auto groups = static_cast<std::ptrdiff_t>(count);
  team = std::max(1, std::min<int>(threads, static_cast<int>(count)));
#pragma omp parallel for num_threads(team) schedule(dynamic)
  for (std::ptrdiff_t g = 0; g < groups; ++g) {
    auto first = static_cast<std::size_t>(g) * per;
    auto last = std::min(slots.size(), first + per);
    auto packed = std::move(slots[last - 1]);
    for (auto k = last - 1; k-- > first;) {
      pk.shift_to(packed, shift);
      pk.add_to(packed, slots[k]);
    }
    pk.write(packed,
             std::span<std::uint8_t>(
                 out.data() + base + static_cast<std::size_t>(g) * size, size));
  }
}

std::vector<learners::grad_sum>
decrypt_histograms(const paillier::private_key& key,
                   const paillier::packing& pack,
                   std::span<const std::uint8_t> bytes, std::size_t count,
                   std::size_t per_histogram, int threads) {
  const auto& pk = key.public_part();
  if (per_histogram == 0 || count % per_histogram != 0)
    throw std::invalid_argument("not whole histograms");
  auto each = histogram_ciphertexts(pack, per_histogram);
  auto histograms = count / per_histogram;
  auto cts = read_ciphertexts(pk, bytes, histograms * each);
  if (!cts)
    throw std::invalid_argument("not a histogram of ciphertexts");
  auto plain = key.decrypt_all(*cts, threads);
  auto fp = he_fixed_point();
  auto per = slots_per_ciphertext(pack);
  std::vector<learners::grad_sum> out(count);
  std::vector<std::uint64_t> words(2 * per);
  for (std::size_t h = 0; h < histograms; ++h)
    for (std::size_t c = 0; c < each; ++c) {
      auto first = c * per;
      auto in_this = std::min(per, per_histogram - first);
      auto w = std::span<std::uint64_t>(words.data(), 2 * in_this);
      pack.unpack(plain[h * each + c], w);
      for (std::size_t k = 0; k < in_this; ++k)
        out[h * per_histogram + first + k] = {fp.decode(w[2 * k]),
                                              fp.decode(w[2 * k + 1])};
    }
  return out;
}

} // namespace veil::protocols::masked
