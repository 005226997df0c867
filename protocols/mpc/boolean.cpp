#include "protocols/mpc/boolean.hpp"

#include <bit>
#include <map>
#include <stdexcept>

namespace veil::protocols::mpc {

task<words> and_words(party& self, words x, words y) {
  auto k = x.size();
  if (y.size() != k)
    throw std::invalid_argument("mpc::and_words: vectors of different lengths");
  auto t = co_await self.correlated(item::bit_triple, k);
  const auto &a = t.parts[0], &b = t.parts[1], &c = t.parts[2];
  words masked(2 * k);
  for (std::size_t i = 0; i < k; ++i) {
    masked[i] = x[i] ^ a[i];
    masked[k + i] = y[i] ^ b[i];
  }
  auto open = co_await self.open_xor(std::move(masked));
  words z(k);
  for (std::size_t i = 0; i < k; ++i) {
    word e = open[i], d = open[k + i];
    z[i] = c[i] ^ (e & b[i]) ^ (d & a[i]) ^ (self.first() ? e & d : 0);
  }
  co_return z;
}

task<words> bit_to_arithmetic(party& self, words bits) {
  auto k = bits.size();
  auto d = co_await self.correlated(item::dabit, k);
  const auto &rho_bit = d.parts[0], &rho = d.parts[1];
  words masked(k);
  for (std::size_t i = 0; i < k; ++i)
    masked[i] = (bits[i] ^ rho_bit[i]) & 1;
  auto c = co_await self.open_xor(std::move(masked));
  words out(k);
  for (std::size_t i = 0; i < k; ++i) {
    word ci = c[i] & 1;
    // bit = c ⊕ ρ = c + ρ − 2 c ρ
    out[i] = (self.first() ? ci : 0) + (1 - 2 * ci) * rho[i];
  }
  co_return out;
}

namespace {

/// A word known to all XOR a dealt bit mask (this party's share of it).
struct bit_operand {
  words known;
  component source;
  words share;
};

/// Every operand XOR a fresh bit mask, opened in one round.
task<std::vector<bit_operand>> open_bit_masked(party& self,
                                               std::vector<words> xs) {
  std::vector<shares_of> dealt;
  words outgoing;
  for (const auto& x : xs) {
    correlation_request spec;
    spec.kind = item::bit_mask;
    spec.count = x.size();
    auto d = co_await self.correlated(spec);
    for (std::size_t i = 0; i < x.size(); ++i)
      outgoing.push_back(x[i] ^ d.parts[0][i]);
    dealt.push_back(std::move(d));
  }
  auto opened = co_await self.open_xor(std::move(outgoing));
  std::vector<bit_operand> out;
  std::size_t at = 0;
  for (std::size_t o = 0; o < xs.size(); ++o) {
    auto k = xs[o].size();
    out.push_back({words(opened.begin() + static_cast<long>(at),
                         opened.begin() + static_cast<long>(at + k)),
                   {item::bit_mask, dealt[o].call, k, 0, 0},
                   std::move(dealt[o].parts[0])});
    at += k;
  }
  co_return out;
}

/// XOR shares of the AND of the operands `which` (2 to 4 of `ops`), no
/// round: ∧(K_i ⊕ M_i) = ⊕ over subsets S of (∧_{i∉S} K_i) ∧ (∧_{i∈S}
/// M_i), the masks' products of two or more dealt (and kept in
/// `monomials`, keyed by their operands, for the other ANDs of the layer).
task<words> and_of(party& self, const std::vector<bit_operand>& ops,
                   std::span<const int> which,
                   std::map<unsigned, words>& monomials) {
  auto m = which.size();
  auto k = ops[static_cast<std::size_t>(which[0])].known.size();
  words out(k, 0);
  for (unsigned subset = 0; subset < (1u << m); ++subset) {
    words known(k, ~word{0});
    unsigned key = 0;
    int size = 0;
    for (std::size_t i = 0; i < m; ++i) {
      const auto& op = ops[static_cast<std::size_t>(which[i])];
      if (subset >> i & 1) {
        key |= 1u << which[i];
        ++size;
      } else {
        for (std::size_t j = 0; j < k; ++j)
          known[j] &= op.known[j];
      }
    }
    if (size == 0) {
      if (self.first())
        for (std::size_t j = 0; j < k; ++j)
          out[j] ^= known[j];
      continue;
    }
    if (size == 1) {
      const auto& share =
          ops[static_cast<std::size_t>(std::countr_zero(key))].share;
      for (std::size_t j = 0; j < k; ++j)
        out[j] ^= known[j] & share[j];
      continue;
    }
    if (!monomials.count(key)) {
      correlation_request spec;
      spec.kind = item::bit_cross;
      spec.count = k;
      for (std::size_t o = 0; o < ops.size(); ++o)
        if (key >> o & 1)
          spec.operands.push_back(ops[o].source);
      auto d = co_await self.correlated(spec);
      monomials[key] = std::move(d.parts[0]);
    }
    const auto& mask = monomials[key];
    for (std::size_t j = 0; j < k; ++j)
      out[j] ^= known[j] & mask[j];
  }
  co_return out;
}

} // namespace

task<words> sign_bits(party& self, words x) {
  auto k = x.size();
  auto eda = co_await self.correlated(item::edabit, k);
  const auto &s_bits = eda.parts[0], &s_share = eda.parts[1];
  auto masked = add(x, s_share); // no temporaries in a co_await (party.hpp)
  auto c = co_await self.open(std::move(masked));
  // x = c − s: borrow out of bit i when c_i < s_i (generate) or when
  // c_i = s_i and one came in (propagate); both local, c being public.
  words G(k), P(k);
  for (std::size_t i = 0; i < k; ++i) {
    G[i] = s_bits[i] & ~c[i];
    P[i] = s_bits[i] ^ (self.first() ? ~c[i] : 0);
  }
  // A radix-4 Kogge–Stone: after the layer of span d, (G, P) at bit i
  // covers bits i − 4d + 1 .. i, so three layers cover 64. Each opens
  // its seven operands once (P and G shifted by d, 2d, 3d); the ANDs of
  // 2 to 4 of them are then local. The last layer needs no P.
  static constexpr int one_back[] = {0, 3}, two_back[] = {0, 1, 4},
                       three_back[] = {0, 1, 2, 5}, all_four[] = {0, 1, 2, 6};
  for (int d = 1; d < 64; d *= 4) {
    bool last = d == 16;
    std::vector<words> xs(last ? 6 : 7, words(k));
    for (std::size_t i = 0; i < k; ++i) {
      xs[0][i] = P[i];
      xs[1][i] = P[i] << d;
      xs[2][i] = P[i] << (2 * d);
      xs[3][i] = G[i] << d;
      xs[4][i] = G[i] << (2 * d);
      xs[5][i] = G[i] << (3 * d);
      if (!last)
        xs[6][i] = P[i] << (3 * d);
    }
    auto ops = co_await open_bit_masked(self, std::move(xs));
    std::map<unsigned, words> monomials;
    // G ∨ P G₁ ∨ P P₁ G₂ ∨ P P₁ P₂ G₃: at most one term is 1 (a block
    // that generates does not propagate), so XOR is OR here.
    auto t1 = co_await and_of(self, ops, one_back, monomials);
    auto t2 = co_await and_of(self, ops, two_back, monomials);
    auto t3 = co_await and_of(self, ops, three_back, monomials);
    for (std::size_t i = 0; i < k; ++i)
      G[i] ^= t1[i] ^ t2[i] ^ t3[i];
    if (!last) {
      auto p4 = co_await and_of(self, ops, all_four, monomials);
      P = std::move(p4);
    }
  }
  words msb(k);
  for (std::size_t i = 0; i < k; ++i)
    msb[i] =
        ((self.first() ? c[i] >> 63 : 0) ^ (s_bits[i] >> 63) ^ (G[i] >> 62)) &
        1;
  co_return msb;
}

task<words> select(party& self, words bits, words values) {
  auto k = bits.size();
  if (values.size() != k)
    throw std::invalid_argument("mpc::select: vectors of different lengths");
  auto t = co_await self.correlated(item::selection, k);
  const auto &rho_bit = t.parts[0], &rho = t.parts[1], &beta = t.parts[2],
             &rho_beta = t.parts[3];
  // One round carries both openings: the bits' XOR and the values' sum.
  words mine(2 * k);
  for (std::size_t i = 0; i < k; ++i) {
    mine[i] = (bits[i] ^ rho_bit[i]) & 1;
    mine[k + i] = values[i] - beta[i];
  }
  self.send(std::vector<words>(static_cast<std::size_t>(self.parties()), mine));
  auto got = co_await self.receive();
  for (std::size_t p = 0; p < got.size(); ++p) {
    if (p == static_cast<std::size_t>(self.id()))
      continue;
    if (got[p].size() != 2 * k)
      throw std::runtime_error("mpc: party " + std::to_string(p) +
                               " sent a vector of another length");
    for (std::size_t i = 0; i < k; ++i) {
      mine[i] ^= got[p][i] & 1;
      mine[k + i] += got[p][k + i];
    }
  }
  words out(k);
  for (std::size_t i = 0; i < k; ++i) {
    word c = mine[i], e = mine[k + i];
    out[i] = c * values[i] + (1 - 2 * c) * (e * rho[i] + rho_beta[i]);
  }
  co_return out;
}

task<words> less_than_zero(party& self, words x) {
  auto bits = co_await sign_bits(self, std::move(x));
  co_return co_await bit_to_arithmetic(self, std::move(bits));
}

task<words> less_than(party& self, words a, words b) {
  auto difference = sub(a, b);
  co_return co_await less_than_zero(self, std::move(difference));
}

} // namespace veil::protocols::mpc

namespace veil::protocols::mpc {

task<words> less_than_bits(party& self, words a, words b) {
  auto difference = sub(a, b);
  co_return co_await sign_bits(self, std::move(difference));
}

} // namespace veil::protocols::mpc
