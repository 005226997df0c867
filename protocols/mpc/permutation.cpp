#include "protocols/mpc/permutation.hpp"

#include <stdexcept>
#include <string>

namespace veil::protocols::mpc {

task<std::vector<std::vector<words>>>
permute_all(party& self, std::vector<permutation_job> jobs) {
  const auto parties = static_cast<std::size_t>(self.parties());
  const auto me = static_cast<std::size_t>(self.id());
  std::vector<permutation_shares> corr;
  std::vector<words> pi_s(jobs.size());
  for (auto& job : jobs) {
    auto n = job.xs.empty() ? 0 : job.xs[0].size();
    for (const auto& x : job.xs)
      if (x.size() != n)
        throw std::invalid_argument("mpc::permute: vectors of different "
                                    "lengths");
    if (static_cast<std::size_t>(job.owner) == me && job.pi.size() != n)
      throw std::invalid_argument("mpc::permute: the owner's permutation "
                                  "does not fit the vectors");
    auto c = co_await self.correlated_permutation(job.owner, n, job.xs.size());
    corr.push_back(std::move(c));
  }
  // One message per peer: job after job, π_s from an owner, x − r to it.
  std::vector<words> out(parties);
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& job = jobs[i];
    auto owner = static_cast<std::size_t>(job.owner);
    auto n = job.xs.empty() ? 0 : job.xs[0].size();
    if (owner == me) {
      std::vector<std::uint32_t> inverse(n);
      for (std::size_t k = 0; k < n; ++k)
        inverse[corr[i].pi_p[k]] = static_cast<std::uint32_t>(k);
      pi_s[i].resize(n);
      for (std::size_t k = 0; k < n; ++k)
        pi_s[i][k] = inverse[job.pi[k]];
      for (std::size_t q = 0; q < parties; ++q)
        if (q != me)
          out[q].insert(out[q].end(), pi_s[i].begin(), pi_s[i].end());
    } else {
      for (std::size_t v = 0; v < job.xs.size(); ++v)
        for (std::size_t k = 0; k < job.xs[v].size(); ++k)
          out[owner].push_back(job.xs[v][k] - corr[i].r[v][k]);
    }
  }
  self.send(std::move(out));
  auto got = co_await self.receive();
  std::vector<std::size_t> at(parties, 0); // read position per sender
  auto take = [&](std::size_t q, std::size_t count) {
    if (count == 0)
      return std::span<const word>();
    if (got[q].size() < at[q] + count)
      throw std::runtime_error("mpc::permute: party " + std::to_string(q) +
                               " sent too few words");
    auto first = got[q].begin() + static_cast<long>(at[q]);
    at[q] += count;
    return std::span<const word>(&*first, count);
  };
  std::vector<std::vector<words>> result(jobs.size());
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const auto& job = jobs[i];
    auto owner = static_cast<std::size_t>(job.owner);
    auto n = corr[i].r.empty() ? 0 : corr[i].r[0].size();
    auto vectors = job.xs.size();
    std::vector<std::uint32_t> order(n);
    if (owner == me) {
      for (std::size_t k = 0; k < n; ++k)
        order[k] = static_cast<std::uint32_t>(pi_s[i][k]);
    } else {
      auto received = take(owner, n);
      std::vector<char> seen(n, 0);
      for (std::size_t k = 0; k < n; ++k) {
        if (received[k] >= n || seen[received[k]])
          throw std::runtime_error(
              "mpc::permute: party " + std::to_string(owner) +
              " sent no permutation of " + std::to_string(n));
        seen[received[k]] = 1;
        order[k] = static_cast<std::uint32_t>(received[k]);
      }
    }
    for (std::size_t v = 0; v < vectors; ++v) {
      auto u = gather(order, corr[i].rho[v]);
      if (owner == me) {
        words diff(n);
        for (std::size_t k = 0; k < n; ++k)
          diff[k] = job.xs[v][k] - corr[i].r[v][k];
        for (std::size_t q = 0; q < parties; ++q) {
          if (q == me)
            continue;
          auto theirs = take(q, n);
          for (std::size_t k = 0; k < n; ++k)
            diff[k] += theirs[k];
        }
        auto moved = gather(job.pi, diff);
        for (std::size_t k = 0; k < n; ++k)
          u[k] += moved[k];
      }
      result[i].push_back(std::move(u));
    }
  }
  for (std::size_t q = 0; q < parties; ++q)
    if (q != me && at[q] != got[q].size())
      throw std::runtime_error("mpc::permute: party " + std::to_string(q) +
                               " sent too many words");
  co_return result;
}

task<std::vector<words>> permute(party& self, int owner,
                                 std::vector<std::uint32_t> pi,
                                 std::vector<words> xs) {
  std::vector<permutation_job> jobs(1);
  jobs[0] = {owner, std::move(pi), std::move(xs)};
  auto all = co_await permute_all(self, std::move(jobs));
  co_return std::move(all[0]);
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

task<std::vector<std::vector<words>>>
bucket_sums_all(party& self, std::vector<permutation_job> jobs, int buckets) {
  std::vector<std::size_t> lengths;
  for (const auto& j : jobs)
    lengths.push_back(j.xs.empty() ? 0 : j.xs[0].size());
  auto permuted = co_await permute_all(self, std::move(jobs));
  std::vector<std::vector<words>> sums(permuted.size());
  for (std::size_t i = 0; i < permuted.size(); ++i) {
    auto bounds = bucket_bounds(lengths[i], buckets);
    for (const auto& x : permuted[i]) {
      words s(static_cast<std::size_t>(buckets), 0);
      for (std::size_t b = 0; b + 1 < bounds.size(); ++b)
        for (auto k = bounds[b]; k < bounds[b + 1]; ++k)
          s[b] += x[k];
      sums[i].push_back(std::move(s));
    }
  }
  co_return sums;
}

task<std::vector<words>> bucket_sums(party& self, int owner,
                                     std::vector<std::uint32_t> order,
                                     std::vector<words> xs, int buckets) {
  std::vector<permutation_job> jobs(1);
  jobs[0] = {owner, std::move(order), std::move(xs)};
  auto all = co_await bucket_sums_all(self, std::move(jobs), buckets);
  co_return std::move(all[0]);
}

} // namespace veil::protocols::mpc
