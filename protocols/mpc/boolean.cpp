#include "protocols/mpc/boolean.hpp"

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
  // Kogge–Stone: G bit i becomes the borrow out of bits 0..i; the last
  // layer needs no P.
  for (int shift = 1; shift < 64; shift *= 2) {
    bool last = shift == 32;
    words lhs(last ? k : 2 * k), rhs(last ? k : 2 * k);
    for (std::size_t i = 0; i < k; ++i) {
      lhs[i] = P[i];
      rhs[i] = G[i] << shift;
      if (!last) {
        lhs[k + i] = P[i];
        rhs[k + i] = P[i] << shift;
      }
    }
    auto r = co_await and_words(self, std::move(lhs), std::move(rhs));
    for (std::size_t i = 0; i < k; ++i) {
      G[i] ^= r[i]; // P and G are never both 1: XOR is OR here
      if (!last)
        P[i] = r[k + i];
    }
  }
  words msb(k);
  for (std::size_t i = 0; i < k; ++i)
    msb[i] = ((self.first() ? c[i] >> 63 : 0) ^ (s_bits[i] >> 63) ^
              (G[i] >> 62)) &
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
