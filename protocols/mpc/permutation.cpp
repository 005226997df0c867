#include "protocols/mpc/permutation.hpp"

#include <stdexcept>
#include <string>

namespace veil::protocols::mpc {

task<std::vector<words>> permute(party& self, int owner,
                                 std::vector<std::uint32_t> pi,
                                 std::vector<words> xs) {
  auto vectors = xs.size();
  if (vectors == 0)
    co_return std::vector<words>{};
  auto n = xs[0].size();
  for (const auto& x : xs)
    if (x.size() != n)
      throw std::invalid_argument("mpc::permute: vectors of different lengths");
  bool mine = self.id() == owner;
  if (mine && pi.size() != n)
    throw std::invalid_argument("mpc::permute: the owner's permutation does "
                                "not fit the vectors");
  auto corr = co_await self.correlated_permutation(owner, n, vectors);
  auto parties = static_cast<std::size_t>(self.parties());
  std::vector<words> out(parties);
  words pi_s;
  if (mine) {
    std::vector<std::uint32_t> inverse(n);
    for (std::size_t i = 0; i < n; ++i)
      inverse[corr.pi_p[i]] = static_cast<std::uint32_t>(i);
    pi_s.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      pi_s[i] = inverse[pi[i]];
    for (std::size_t q = 0; q < parties; ++q)
      if (q != static_cast<std::size_t>(owner))
        out[q] = pi_s;
  } else {
    words masked;
    masked.reserve(n * vectors);
    for (std::size_t v = 0; v < vectors; ++v)
      for (std::size_t i = 0; i < n; ++i)
        masked.push_back(xs[v][i] - corr.r[v][i]);
    out[static_cast<std::size_t>(owner)] = std::move(masked);
  }
  self.send(std::move(out));
  auto got = co_await self.receive();
  std::vector<std::uint32_t> order(n);
  if (mine) {
    for (std::size_t i = 0; i < n; ++i)
      order[i] = static_cast<std::uint32_t>(pi_s[i]);
  } else {
    const auto& received = got[static_cast<std::size_t>(owner)];
    std::vector<char> seen(n, 0);
    bool valid = received.size() == n;
    for (std::size_t i = 0; valid && i < n; ++i) {
      valid = received[i] < n && !seen[received[i]];
      if (valid) {
        seen[received[i]] = 1;
        order[i] = static_cast<std::uint32_t>(received[i]);
      }
    }
    if (!valid)
      throw std::runtime_error("mpc::permute: party " + std::to_string(owner) +
                               " sent no permutation of " + std::to_string(n));
  }
  std::vector<words> result(vectors);
  for (std::size_t v = 0; v < vectors; ++v) {
    result[v] = gather(order, corr.rho[v]);
    if (!mine)
      continue;
    words diff(n);
    for (std::size_t i = 0; i < n; ++i)
      diff[i] = xs[v][i] - corr.r[v][i];
    for (std::size_t q = 0; q < parties; ++q) {
      if (q == static_cast<std::size_t>(owner))
        continue;
      if (got[q].size() != n * vectors)
        throw std::runtime_error("mpc::permute: party " + std::to_string(q) +
                                 " sent a vector of another length");
      for (std::size_t i = 0; i < n; ++i)
        diff[i] += got[q][v * n + i];
    }
    auto moved = gather(pi, diff);
    for (std::size_t i = 0; i < n; ++i)
      result[v][i] += moved[i];
  }
  co_return result;
}

std::vector<std::size_t> bucket_bounds(std::size_t n, int buckets) {
  if (buckets < 1)
    throw std::invalid_argument("mpc::bucket_bounds: at least one bucket");
  auto b = static_cast<std::size_t>(buckets);
  std::vector<std::size_t> out(b + 1);
  for (std::size_t i = 0; i <= b; ++i)
    out[i] =
        static_cast<std::size_t>((static_cast<unsigned __int128>(i) * n) / b);
  return out;
}

task<std::vector<words>> bucket_sums(party& self, int owner,
                                     std::vector<std::uint32_t> order,
                                     std::vector<words> xs, int buckets) {
  auto n = xs.empty() ? 0 : xs[0].size();
  auto permuted =
      co_await permute(self, owner, std::move(order), std::move(xs));
  auto bounds = bucket_bounds(n, buckets);
  std::vector<words> sums;
  for (const auto& x : permuted) {
    words s(static_cast<std::size_t>(buckets), 0);
    for (std::size_t b = 0; b + 1 < bounds.size(); ++b)
      for (auto i = bounds[b]; i < bounds[b + 1]; ++i)
        s[b] += x[i];
    sums.push_back(std::move(s));
  }
  co_return sums;
}

} // namespace veil::protocols::mpc
