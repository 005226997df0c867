#include "protocols/mpc/dealer.hpp"

#include <sodium.h>

#include <stdexcept>

#include "protocols/crypto/masks.hpp"
#include "protocols/crypto/random.hpp"

namespace veil::protocols::mpc {

namespace {

/// Parts per item, and which of them the last party gets corrected.
std::size_t parts_of(item kind) {
  switch (kind) {
  case item::triple:
  case item::truncation:
  case item::bit_triple:
    return 3;
  case item::dabit:
    return 2;
  case item::permutation:
    return 0; // not an item stream (expand_permutation)
  }
  return 0;
}

const char (&context_of(item kind))[9] {
  static const char triple[9] = "mpcTripl", truncation[9] = "mpcTrunc",
                    bit_triple[9] = "mpcBTrip", dabit[9] = "mpcDaBit";
  switch (kind) {
  case item::triple:
    return triple;
  case item::truncation:
    return truncation;
  case item::bit_triple:
    return bit_triple;
  case item::dabit:
  case item::permutation:
    return dabit;
  }
  return triple;
}

/// The number of times the signed shares' sum wraps: (Σ sgn(s) − sgn(Σ s
/// mod 2^64)) / 2^64, an integer, as a ring element.
word wraps(const std::vector<word>& s) {
  __int128 sum = 0;
  word ring = 0;
  for (auto x : s) {
    sum += to_signed(x);
    ring += x;
  }
  return static_cast<word>(
      static_cast<std::int64_t>((sum - to_signed(ring)) >> 64));
}

/// Party p's r and ρ for a permutation call (before ρ's correction).
void expand_permutation(const crypto::key32& seed, std::uint64_t call,
                        std::size_t n, std::size_t vectors,
                        std::vector<words>& r, std::vector<words>& rho) {
  auto key = crypto::derive_key(seed, call, "mpcPermR");
  words stream(2 * n * vectors);
  crypto::expand(key, stream);
  r.clear();
  rho.clear();
  for (std::size_t v = 0; v < vectors; ++v) {
    auto at = stream.begin() + static_cast<long>(2 * n * v);
    r.emplace_back(at, at + static_cast<long>(n));
    rho.emplace_back(at + static_cast<long>(n), at + static_cast<long>(2 * n));
  }
}

crypto::key32 permutation_key(const crypto::key32& owner_seed,
                              std::uint64_t call) {
  return crypto::derive_key(owner_seed, call, "mpcPermP");
}

} // namespace

words gather(std::span<const std::uint32_t> pi, std::span<const word> x) {
  words out(pi.size());
  for (std::size_t i = 0; i < pi.size(); ++i)
    out[i] = x[pi[i]];
  return out;
}

std::vector<std::uint32_t> random_permutation(const crypto::key32& key,
                                              std::size_t n) {
  std::vector<std::uint32_t> pi(n);
  for (std::size_t i = 0; i < n; ++i)
    pi[i] = static_cast<std::uint32_t>(i);
  crypto::seeded_random rng(key);
  for (std::size_t i = n; i > 1; --i) {
    // j uniform in [0, i): reject the top partial range of 2^64.
    std::uint64_t limit = ~std::uint64_t{0} - (~std::uint64_t{0} % i) - 1;
    std::uint64_t w;
    do
      w = rng();
    while (w > limit);
    std::swap(pi[i - 1], pi[w % i]);
  }
  return pi;
}

shares_of expand_item(const crypto::key32& seed, item kind, std::uint64_t call,
                      std::size_t k) {
  auto key = crypto::derive_key(seed, call, context_of(kind));
  auto parts = parts_of(kind);
  words stream(parts * k);
  crypto::expand(key, stream);
  shares_of out;
  for (std::size_t p = 0; p < parts; ++p)
    out.parts.emplace_back(stream.begin() + static_cast<long>(p * k),
                           stream.begin() + static_cast<long>((p + 1) * k));
  if (kind == item::dabit)
    for (auto& b : out.parts[0])
      b &= 1; // the XOR share of the bit lives in bit 0
  return out;
}

dealer::dealer(int parties, std::uint64_t seed) {
  if (parties < 2)
    throw std::invalid_argument("mpc::dealer: at least two parties");
  crypto::ensure_sodium();
  seeds_.resize(static_cast<std::size_t>(parties));
  if (seed == 0) {
    for (auto& s : seeds_)
      randombytes_buf(s.data(), s.size());
  } else {
    crypto::seeded_random rng(seed);
    for (auto& s : seeds_)
      for (std::size_t i = 0; i < s.size(); i += 8) {
        auto w = rng();
        for (std::size_t b = 0; b < 8; ++b)
          s.data()[i + b] = static_cast<std::uint8_t>(w >> (8 * b));
      }
  }
}

words dealer::correction(item kind, std::uint64_t call, std::size_t k) const {
  auto n = seeds_.size();
  std::vector<shares_of> all;
  all.reserve(n);
  for (const auto& s : seeds_)
    all.push_back(expand_item(s, kind, call, k));
  words out;
  std::vector<word> column(n);
  switch (kind) {
  case item::triple: // c_last = a b − Σ_{others} c
    for (std::size_t j = 0; j < k; ++j) {
      word a = 0, b = 0, c = 0;
      for (std::size_t p = 0; p < n; ++p) {
        a += all[p].parts[0][j];
        b += all[p].parts[1][j];
        if (p + 1 < n)
          c += all[p].parts[2][j];
      }
      out.push_back(a * b - c);
    }
    break;
  case item::truncation: // θ then μ, each corrected to the true value
    out.resize(2 * k);
    for (std::size_t j = 0; j < k; ++j) {
      word r = 0, theta = 0, mu = 0;
      for (std::size_t p = 0; p < n; ++p) {
        column[p] = all[p].parts[0][j];
        r += column[p];
        if (p + 1 < n) {
          theta += all[p].parts[1][j];
          mu += all[p].parts[2][j];
        }
      }
      out[j] = wraps(column) - theta;
      out[k + j] = (r >> 63) - mu;
    }
    break;
  case item::bit_triple: // c_last = (a ∧ b) ⊕ (⊕_{others} c)
    for (std::size_t j = 0; j < k; ++j) {
      word a = 0, b = 0, c = 0;
      for (std::size_t p = 0; p < n; ++p) {
        a ^= all[p].parts[0][j];
        b ^= all[p].parts[1][j];
        if (p + 1 < n)
          c ^= all[p].parts[2][j];
      }
      out.push_back((a & b) ^ c);
    }
    break;
  case item::dabit: // arithmetic share: ρ − Σ_{others}
    for (std::size_t j = 0; j < k; ++j) {
      word rho = 0, sum = 0;
      for (std::size_t p = 0; p < n; ++p) {
        rho ^= all[p].parts[0][j];
        if (p + 1 < n)
          sum += all[p].parts[1][j];
      }
      out.push_back(rho - sum);
    }
    break;
  case item::permutation:
    throw std::invalid_argument("mpc::dealer::correction: a permutation is "
                                "permutation_correction's");
  }
  correction_words_ += out.size();
  return out;
}

words dealer::permutation_correction(int owner, std::uint64_t call,
                                     std::size_t n, std::size_t vectors) const {
  auto pi_p = random_permutation(
      permutation_key(seeds_.at(static_cast<std::size_t>(owner)), call), n);
  std::vector<words> total_r(vectors, words(n, 0)),
      others_rho(vectors, words(n, 0));
  std::vector<words> r, rho;
  for (std::size_t p = 0; p < seeds_.size(); ++p) {
    expand_permutation(seeds_[p], call, n, vectors, r, rho);
    for (std::size_t v = 0; v < vectors; ++v)
      for (std::size_t i = 0; i < n; ++i) {
        total_r[v][i] += r[v][i];
        if (p + 1 < seeds_.size())
          others_rho[v][i] += rho[v][i];
      }
  }
  words out;
  out.reserve(n * vectors);
  for (std::size_t v = 0; v < vectors; ++v) {
    auto want = gather(pi_p, total_r[v]);
    for (std::size_t i = 0; i < n; ++i)
      out.push_back(want[i] - others_rho[v][i]);
  }
  correction_words_ += out.size();
  return out;
}

words dealer::answer(const correlation_request& r) const {
  if (r.kind == item::permutation)
    return permutation_correction(r.owner, r.call, r.length, r.count);
  return correction(r.kind, r.call, r.count);
}

correlations::correlations(int id, int parties, const crypto::key32& seed)
    : id_(id), parties_(parties), seed_(seed) {
  if (id < 0 || id >= parties)
    throw std::invalid_argument("mpc::correlations: no such party");
}

shares_of correlations::next(item kind, std::size_t k,
                             correlation_request& request) {
  if (kind == item::permutation)
    throw std::invalid_argument("mpc::correlations::next: use "
                                "next_permutation");
  auto call = calls_[static_cast<int>(kind)]++;
  request = {kind, call, k, -1, 0};
  return expand_item(seed_, kind, call, k);
}

void correlations::correct(shares_of& mine, item kind, std::size_t k,
                           const words& fix) {
  if (fix.size() != (kind == item::truncation ? 2 * k : k))
    throw std::runtime_error("mpc: the dealer's correction has the wrong "
                             "length");
  auto put = [&](std::size_t part, std::size_t from) {
    std::copy(fix.begin() + static_cast<long>(from),
              fix.begin() + static_cast<long>(from + k),
              mine.parts[part].begin());
  };
  switch (kind) {
  case item::triple:
  case item::bit_triple:
    put(2, 0);
    break;
  case item::truncation:
    put(1, 0);
    put(2, k);
    break;
  case item::dabit:
    put(1, 0);
    break;
  case item::permutation:
    break;
  }
}

} // namespace veil::protocols::mpc

namespace veil::protocols::mpc {

permutation_shares
correlations::next_permutation(int owner, std::size_t n, std::size_t vectors,
                               correlation_request& request) {
  if (owner < 0 || owner >= parties_)
    throw std::invalid_argument("mpc::next_permutation: no such owner");
  auto call = calls_[static_cast<int>(item::permutation)]++;
  request = {item::permutation, call, vectors, owner, n};
  permutation_shares out;
  expand_permutation(seed_, call, n, vectors, out.r, out.rho);
  if (id_ == owner)
    out.pi_p = random_permutation(permutation_key(seed_, call), n);
  return out;
}

void correlations::correct(permutation_shares& mine, std::size_t n,
                           const words& fix) {
  if (fix.size() != n * mine.rho.size())
    throw std::runtime_error("mpc: the dealer's correction has the wrong "
                             "length");
  for (std::size_t v = 0; v < mine.rho.size(); ++v)
    std::copy(fix.begin() + static_cast<long>(v * n),
              fix.begin() + static_cast<long>((v + 1) * n),
              mine.rho[v].begin());
}

} // namespace veil::protocols::mpc
