#include "protocols/mpc/arithmetic.hpp"

#include <stdexcept>

namespace veil::protocols::mpc {

namespace {

/// (sgn a + sgn b − sgn(a + b mod 2^64)) / 2^64: −1, 0 or 1.
word carry_of(word a, word b) {
  __int128 s =
      static_cast<__int128>(to_signed(a)) + to_signed(b) - to_signed(a + b);
  return static_cast<word>(static_cast<std::int64_t>(s >> 64));
}

} // namespace

task<words> mul(party& self, words x, words y) {
  auto k = x.size();
  if (y.size() != k)
    throw std::invalid_argument("mpc::mul: vectors of different lengths");
  auto t = co_await self.correlated(item::triple, k);
  const auto &a = t.parts[0], &b = t.parts[1], &c = t.parts[2];
  words masked(2 * k);
  for (std::size_t i = 0; i < k; ++i) {
    masked[i] = x[i] - a[i];
    masked[k + i] = y[i] - b[i];
  }
  auto open = co_await self.open(std::move(masked));
  words z(k);
  for (std::size_t i = 0; i < k; ++i) {
    word e = open[i], d = open[k + i];
    z[i] = c[i] + e * b[i] + d * a[i] + (self.first() ? e * d : 0);
  }
  co_return z;
}

task<words> trunc(party& self, words z, int bits, truncation mode) {
  if (bits <= 0 || bits >= 63)
    throw std::invalid_argument("mpc::trunc: shift out of range");
  auto k = z.size();
  auto pair = co_await self.correlated(item::truncation, k);
  const auto &r = pair.parts[0], &theta_r = pair.parts[1], &mu = pair.parts[2];
  words p(k), beta(k);
  for (std::size_t i = 0; i < k; ++i) {
    p[i] = z[i] + r[i];
    beta[i] = carry_of(z[i], r[i]);
  }
  // Everyone (exact) or P_1 (paper) learns p = z + r and its shares'
  // wraps θ_p: hence the shares themselves travel, not only their sum.
  auto n = static_cast<std::size_t>(self.parties());
  std::vector<words> out(n);
  for (std::size_t q = 0; q < n; ++q)
    if (mode == truncation::exact || q == 0)
      out[q] = p;
  self.send(std::move(out));
  auto got = co_await self.receive();
  bool knows_p = mode == truncation::exact || self.first();
  words theta_p(k, 0), above(k, 0), below(k, 0);
  if (knows_p) {
    for (std::size_t i = 0; i < k; ++i) {
      __int128 sum = to_signed(p[i]);
      word ring = p[i];
      for (std::size_t q = 0; q < n; ++q) {
        if (q == static_cast<std::size_t>(self.id()))
          continue;
        if (got[q].size() != k)
          throw std::runtime_error("mpc::trunc: party " + std::to_string(q) +
                                   " sent a vector of another length");
        sum += to_signed(got[q][i]);
        ring += got[q][i];
      }
      theta_p[i] = static_cast<word>(
          static_cast<std::int64_t>((sum - to_signed(ring)) >> 64));
      if (mode == truncation::exact) {
        auto signed_p = to_signed(ring);
        below[i] = signed_p < -(std::int64_t{1} << 62);
        above[i] = signed_p >= (std::int64_t{1} << 62);
      }
    }
  }
  words out_z(k);
  for (std::size_t i = 0; i < k; ++i) {
    word theta = (self.first() ? theta_p[i] : 0) + beta[i] - theta_r[i];
    if (mode == truncation::exact) {
      // η = [p̂ < −2^62] [r̂ ≥ 0] − [p̂ ≥ 2^62] [r̂ < 0], with [r̂ < 0] = μ
      // shared: η = a (1 − μ) − b μ = a − (a + b) μ.
      word eta = (self.first() ? below[i] : 0) - (below[i] + above[i]) * mu[i];
      theta -= eta;
    }
    out_z[i] = static_cast<word>(to_signed(z[i]) >> bits) -
               theta * (word{1} << (64 - bits));
  }
  co_return out_z;
}

task<words> mul_fixed(party& self, words x, words y, truncation mode) {
  auto product = co_await mul(self, std::move(x), std::move(y));
  co_return co_await trunc(self, std::move(product), fraction_bits, mode);
}

words scale(std::span<const word> x, word k) {
  words out(x.begin(), x.end());
  for (auto& v : out)
    v *= k;
  return out;
}

} // namespace veil::protocols::mpc
