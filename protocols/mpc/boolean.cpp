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

task<words> less_than_zero(party& self, words x) {
  auto k = x.size();
  auto n = static_cast<std::size_t>(self.parties());
  auto me = static_cast<std::size_t>(self.id());
  // Word m of the sum is held by party m alone: its XOR sharing is the
  // share itself at m and 0 elsewhere.
  std::vector<words> terms(n);
  for (std::size_t m = 0; m < n; ++m)
    terms[m] = m == me ? x : words(k, 0);
  // Carry-save layers: three words become two (S, carries << 1); all
  // groups' ANDs of a layer in one round.
  while (terms.size() > 2) {
    auto groups = terms.size() / 3;
    words left(groups * k), right(groups * k);
    for (std::size_t g = 0; g < groups; ++g)
      for (std::size_t i = 0; i < k; ++i) {
        word z = terms[3 * g + 2][i];
        left[g * k + i] = terms[3 * g][i] ^ z;
        right[g * k + i] = terms[3 * g + 1][i] ^ z;
      }
    auto both = co_await and_words(self, std::move(left), std::move(right));
    std::vector<words> next;
    for (std::size_t g = 0; g < groups; ++g) {
      words sum(k), carry(k);
      for (std::size_t i = 0; i < k; ++i) {
        word X = terms[3 * g][i], Y = terms[3 * g + 1][i],
             Z = terms[3 * g + 2][i];
        sum[i] = X ^ Y ^ Z;
        carry[i] = (both[g * k + i] ^ Z) << 1;
      }
      next.push_back(std::move(sum));
      next.push_back(std::move(carry));
    }
    for (auto m = 3 * groups; m < terms.size(); ++m)
      next.push_back(std::move(terms[m]));
    terms = std::move(next);
  }
  const auto &A = terms[0], &B = terms[1];
  // Kogge–Stone: G bit i becomes the carry out of bits 0..i.
  auto G = co_await and_words(self, A, B);
  words P(k);
  for (std::size_t i = 0; i < k; ++i)
    P[i] = A[i] ^ B[i];
  for (int s = 1; s < 64; s *= 2) {
    words lhs(2 * k), rhs(2 * k);
    for (std::size_t i = 0; i < k; ++i) {
      lhs[i] = P[i];
      rhs[i] = G[i] << s;
      lhs[k + i] = P[i];
      rhs[k + i] = P[i] << s;
    }
    auto r = co_await and_words(self, std::move(lhs), std::move(rhs));
    for (std::size_t i = 0; i < k; ++i) {
      G[i] ^= r[i]; // P and G are never both 1: XOR is OR here
      P[i] = r[k + i];
    }
  }
  words msb(k);
  for (std::size_t i = 0; i < k; ++i)
    msb[i] = ((A[i] >> 63) ^ (B[i] >> 63) ^ (G[i] >> 62)) & 1;
  co_return co_await bit_to_arithmetic(self, std::move(msb));
}

task<words> less_than(party& self, words a, words b) {
  auto difference = sub(a, b);
  co_return co_await less_than_zero(self, std::move(difference));
}

} // namespace veil::protocols::mpc
