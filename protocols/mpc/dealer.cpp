#include "protocols/mpc/dealer.hpp"

#include <sodium.h>

#include <stdexcept>

#include "protocols/crypto/masks.hpp"
#include "protocols/crypto/random.hpp"

namespace veil::protocols::mpc {

std::size_t parts_of(item kind) {
  switch (kind) {
  case item::triple:
  case item::truncation:
  case item::bit_triple:
  case item::trunc_mask:
    return 3;
  case item::dabit:
  case item::edabit:
    return 2;
  case item::selection:
    return 4;
  case item::mask:
  case item::cross:
  case item::bit_mask:
  case item::bit_cross:
    return 1;
  case item::permutation:
    return 0; // not an item stream (expand_permutation)
  }
  return 0;
}

bool corrected(item kind) {
  return kind != item::mask && kind != item::bit_mask;
}

namespace {

const char (&context_of(item kind))[9] {
  static const char triple[9] = "mpcTripl", truncation[9] = "mpcTrunc",
                    bit_triple[9] = "mpcBTrip", dabit[9] = "mpcDaBit",
                    mask[9] = "mpcMask_", trunc_mask[9] = "mpcTMask",
                    cross[9] = "mpcCross", edabit[9] = "mpcEdaBt",
                    selection[9] = "mpcSelec", bit_mask[9] = "mpcBMask",
                    bit_cross[9] = "mpcBCros";
  switch (kind) {
  case item::bit_mask:
    return bit_mask;
  case item::bit_cross:
    return bit_cross;
  case item::edabit:
    return edabit;
  case item::selection:
    return selection;
  case item::mask:
    return mask;
  case item::trunc_mask:
    return trunc_mask;
  case item::cross:
    return cross;
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
  if (kind == item::dabit || kind == item::selection)
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
  case item::edabit: // arithmetic share: s − Σ_{others}, s the XOR of words
    for (std::size_t j = 0; j < k; ++j) {
      word s = 0, sum = 0;
      for (std::size_t p = 0; p < n; ++p) {
        s ^= all[p].parts[0][j];
        if (p + 1 < n)
          sum += all[p].parts[1][j];
      }
      out.push_back(s - sum);
    }
    break;
  case item::selection: // ρ's arithmetic share, then ρ b's
    out.resize(2 * k);
    for (std::size_t j = 0; j < k; ++j) {
      word rho = 0, rho_sum = 0, b = 0, rb_sum = 0;
      for (std::size_t p = 0; p < n; ++p) {
        rho ^= all[p].parts[0][j];
        b += all[p].parts[2][j];
        if (p + 1 < n) {
          rho_sum += all[p].parts[1][j];
          rb_sum += all[p].parts[3][j];
        }
      }
      out[j] = rho - rho_sum;
      out[k + j] = rho * b - rb_sum;
    }
    break;
  case item::permutation:
  case item::mask:
  case item::trunc_mask:
  case item::cross:
  case item::bit_mask:
  case item::bit_cross:
    throw std::invalid_argument("mpc::dealer::correction: not a plain item");
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

namespace {

void check_bits(int bits) {
  if (bits <= 0 || bits >= 63)
    throw std::invalid_argument("mpc: a truncation mask's shift is out of "
                                "range");
}

} // namespace

words dealer::value_of(const component& c) const {
  if (c.kind != item::mask && c.kind != item::trunc_mask &&
      c.kind != item::bit_mask)
    throw std::invalid_argument("mpc::dealer: only masks are multiplied");
  if (c.part < 0 || static_cast<std::size_t>(c.part) >= parts_of(c.kind))
    throw std::invalid_argument("mpc::dealer: no such part");
  for (const auto& k : recent_)
    if (k.kind == c.kind && k.call == c.call && k.part == c.part &&
        k.bits == c.bits && k.value.size() == c.count)
      return k.value;
  words r(c.count, 0);
  for (const auto& seed : seeds_) {
    auto mine = expand_item(seed, c.kind, c.call, c.count);
    for (std::size_t j = 0; j < c.count; ++j)
      r[j] = c.kind == item::bit_mask ? r[j] ^ mine.parts[0][j]
                                      : r[j] + mine.parts[0][j];
  }
  if (c.part == 1) {
    check_bits(c.bits);
    for (auto& v : r)
      v = (v & ~(word{1} << 63)) >> c.bits; // ρ
  } else if (c.part == 2) {
    for (auto& v : r)
      v >>= 63; // μ
  }
  constexpr std::size_t kept = 16;
  if (recent_.size() == kept)
    recent_.erase(recent_.begin());
  recent_.push_back({c.kind, c.call, c.part, c.bits, r});
  return r;
}

words dealer::answer(const correlation_request& r) const {
  auto key = std::make_pair(static_cast<int>(r.kind), r.call);
  if (answered_.count(key))
    throw std::invalid_argument("mpc::dealer: call " + std::to_string(r.call) +
                                " of this kind was answered already");
  for (const auto& o : r.operands)
    if (o.kind == item::trunc_mask) {
      auto dealt = answered_.find({static_cast<int>(o.kind), o.call});
      if (dealt == answered_.end() || dealt->second != o.bits)
        throw std::invalid_argument("mpc::dealer: a cross product of a "
                                    "truncation mask not dealt with that "
                                    "shift");
    }
  answered_.emplace(key, r.bits);
  switch (r.kind) {
  case item::permutation:
    return permutation_correction(r.owner, r.call, r.length, r.count);
  case item::mask:
  case item::bit_mask:
    throw std::invalid_argument("mpc::dealer: a mask needs no correction");
  case item::trunc_mask: { // ρ then μ, each the true value − the others'
    check_bits(r.bits);
    // One expansion per party: r from all, the others' ρ and μ shares.
    auto k = r.count;
    words total(k, 0), out(2 * k, 0);
    for (std::size_t p = 0; p < seeds_.size(); ++p) {
      auto mine = expand_item(seeds_[p], r.kind, r.call, k);
      bool last = p + 1 == seeds_.size();
      for (std::size_t j = 0; j < k; ++j) {
        total[j] += mine.parts[0][j];
        if (!last) {
          out[j] -= mine.parts[1][j];
          out[k + j] -= mine.parts[2][j];
        }
      }
    }
    for (std::size_t j = 0; j < k; ++j) {
      out[j] += (total[j] & ~(word{1} << 63)) >> r.bits; // ρ
      out[k + j] += total[j] >> 63;                      // μ
    }
    correction_words_ += out.size();
    return out;
  }
  case item::cross:
  case item::bit_cross: {
    bool bitwise = r.kind == item::bit_cross;
    auto most = bitwise ? 4u : 2u;
    if (r.operands.size() < 2 || r.operands.size() > most)
      throw std::invalid_argument("mpc::dealer: a cross product of " +
                                  std::to_string(r.operands.size()) +
                                  " operands");
    for (const auto& o : r.operands)
      if (o.count != r.count || (bitwise != (o.kind == item::bit_mask)))
        throw std::invalid_argument("mpc::dealer: a cross product of "
                                    "other lengths or kinds");
    auto out = value_of(r.operands[0]);
    for (std::size_t o = 1; o < r.operands.size(); ++o) {
      auto b = value_of(r.operands[o]);
      for (std::size_t j = 0; j < r.count; ++j)
        out[j] = bitwise ? out[j] & b[j] : out[j] * b[j];
    }
    auto n = seeds_.size();
    for (std::size_t p = 0; p + 1 < n; ++p) {
      auto theirs = expand_item(seeds_[p], r.kind, r.call, r.count);
      for (std::size_t j = 0; j < r.count; ++j)
        out[j] =
            bitwise ? out[j] ^ theirs.parts[0][j] : out[j] - theirs.parts[0][j];
    }
    correction_words_ += out.size();
    return out;
  }
  default:
    return correction(r.kind, r.call, r.count);
  }
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
  request = correlation_request{};
  request.kind = kind;
  request.count = k;
  return next(request);
}

shares_of correlations::next(correlation_request& request) {
  if (request.kind == item::permutation)
    throw std::invalid_argument("mpc::correlations::next: use "
                                "next_permutation");
  request.call = calls_[static_cast<int>(request.kind)]++;
  auto out = expand_item(seed_, request.kind, request.call, request.count);
  out.call = request.call;
  return out;
}

std::size_t correlations::correction_length(item kind, std::size_t k) {
  switch (kind) {
  case item::truncation:
  case item::trunc_mask:
  case item::selection:
    return 2 * k;
  case item::mask:
  case item::bit_mask:
    return 0;
  default:
    return k;
  }
}

void correlations::correct(shares_of& mine, item kind, std::size_t k,
                           const words& fix) {
  if (fix.size() != correction_length(kind, k))
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
  case item::trunc_mask:
    put(1, 0);
    put(2, k);
    break;
  case item::dabit:
  case item::edabit:
    put(1, 0);
    break;
  case item::selection:
    put(1, 0);
    put(3, k);
    break;
  case item::cross:
  case item::bit_cross:
    put(0, 0);
    break;
  case item::mask:
  case item::bit_mask:
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
  request = correlation_request{};
  request.kind = item::permutation;
  request.call = call;
  request.count = vectors;
  request.owner = owner;
  request.length = n;
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
