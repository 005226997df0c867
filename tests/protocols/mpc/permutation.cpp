// SecPerm and SecDisc (spec privet §8.4 items 9, 10 and 14): the permuted
// shares reconstruct to gather(π, x) bit-exactly, the spec's hand example
// included; bucket sums equal the plaintext's on the encoded values; what
// the other parties see of π (π_s) is a uniform permutation whatever π is.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <numeric>

#include "protocols/mpc/permutation.hpp"
#include "tests/protocols/mpc/support.hpp"

using namespace veil::test::mpc;

namespace {

/// Runs permute (or bucket_sums when buckets > 0) with `owner` holding
/// `pi` on `xs` (dealt by party 0) and returns the opened results.
std::vector<words> run_permute(int n, int owner,
                               const std::vector<std::uint32_t>& pi,
                               const std::vector<words>& xs, int buckets = 0,
                               std::uint64_t seed = 3) {
  local_network net(n, seed);
  auto out = net.run<words>([&](party& p) -> task<words> {
    std::vector<words> shares;
    for (const auto& x : xs) {
      words mine;
      if (p.first())
        mine = x;
      auto s = co_await p.share_from(0, std::move(mine), x.size());
      shares.push_back(std::move(s));
    }
    std::vector<std::uint32_t> order;
    if (p.id() == owner)
      order = pi;
    std::vector<words> result;
    if (buckets > 0) {
      auto r = co_await bucket_sums(p, owner, std::move(order),
                                    std::move(shares), buckets);
      result = std::move(r);
    } else {
      auto r = co_await permute(p, owner, std::move(order), std::move(shares));
      result = std::move(r);
    }
    words all;
    for (const auto& r : result)
      all.insert(all.end(), r.begin(), r.end());
    co_return co_await p.open(std::move(all));
  });
  std::vector<words> split;
  auto len = xs.empty() ? 0
                        : (buckets > 0 ? static_cast<std::size_t>(buckets)
                                       : xs[0].size());
  for (std::size_t v = 0; v < xs.size(); ++v)
    split.emplace_back(out[0].begin() + static_cast<long>(v * len),
                       out[0].begin() + static_cast<long>((v + 1) * len));
  return split;
}

} // namespace

BOOST_AUTO_TEST_SUITE(mpc)
BOOST_AUTO_TEST_SUITE(permutation)

BOOST_AUTO_TEST_CASE(the_spec_hand_example) {
  auto got = run_permute(3, 1, {2, 0, 1}, {{10, 20, 30}});
  BOOST_TEST((got[0] == words{30, 10, 20}));
}

BOOST_AUTO_TEST_CASE(permuted_shares_reconstruct_exactly) {
  std::mt19937_64 g(13);
  for (int n : party_counts)
    for (int owner = 0; owner < n; ++owner) {
      const std::size_t len = 257;
      std::vector<std::uint32_t> pi(len);
      std::iota(pi.begin(), pi.end(), 0u);
      std::shuffle(pi.begin(), pi.end(), g);
      std::vector<words> xs(2, words(len));
      for (auto& x : xs)
        for (auto& v : x)
          v = g();
      auto got = run_permute(n, owner, pi, xs);
      for (std::size_t v = 0; v < xs.size(); ++v)
        BOOST_TEST(got[v] == gather(pi, xs[v]),
                   n << " parties, owner " << owner);
    }
}

BOOST_AUTO_TEST_CASE(jobs_of_several_owners_share_one_round) {
  std::mt19937_64 g(15);
  const int n = 4;
  const std::size_t len = 50;
  std::vector<std::vector<std::uint32_t>> pis(3,
                                              std::vector<std::uint32_t>(len));
  std::vector<words> xs(3, words(len));
  for (std::size_t i = 0; i < 3; ++i) {
    std::iota(pis[i].begin(), pis[i].end(), 0u);
    std::shuffle(pis[i].begin(), pis[i].end(), g);
    for (auto& v : xs[i])
      v = g();
  }
  const int owners[3] = {3, 0, 3}; // one owner twice, one party never
  local_network net(n, 16);
  auto out = net.run<words>([&](party& p) -> task<words> {
    std::vector<permutation_job> jobs(3);
    for (std::size_t i = 0; i < 3; ++i) {
      jobs[i].owner = owners[i];
      if (p.id() == owners[i])
        jobs[i].pi = pis[i];
      // Party 0 holds the vectors, the others shares of 0.
      jobs[i].xs = {p.first() ? xs[i] : words(len, 0)};
    }
    auto r = co_await permute_all(p, std::move(jobs));
    words all;
    for (const auto& job : r)
      all.insert(all.end(), job[0].begin(), job[0].end());
    co_return co_await p.open(std::move(all));
  });
  BOOST_TEST(net.traffic().rounds == 2u); // the permutations, the opening
  for (std::size_t i = 0; i < 3; ++i)
    BOOST_TEST((words(out[0].begin() + static_cast<long>(i * len),
                      out[0].begin() + static_cast<long>((i + 1) * len)) ==
                gather(pis[i], xs[i])));
}

BOOST_AUTO_TEST_CASE(bucket_sums_are_the_plaintexts) {
  std::mt19937_64 g(14);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n : party_counts) {
    const std::size_t len = 103; // not a multiple of the buckets
    const int buckets = 8;
    std::vector<double> feature(len);
    for (auto& f : feature)
      f = std::floor(u(g) * 10); // ties: the stable order breaks them
    std::vector<std::uint32_t> order(len);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](auto a, auto b) { return feature[a] < feature[b]; });
    std::vector<words> xs(2, words(len));
    for (auto& x : xs)
      for (auto& v : x)
        v = encode(u(g));
    auto got = run_permute(n, n - 1, order, xs, buckets);
    auto bounds = bucket_bounds(len, buckets);
    BOOST_TEST(bounds.back() == len);
    for (std::size_t v = 0; v < xs.size(); ++v)
      for (int b = 0; b < buckets; ++b) {
        word want = 0;
        for (auto i = bounds[static_cast<std::size_t>(b)];
             i < bounds[static_cast<std::size_t>(b) + 1]; ++i)
          want += xs[v][order[i]];
        BOOST_TEST(got[v][static_cast<std::size_t>(b)] == want);
      }
  }
}

// π_s = π_p⁻¹ ∘ π with π_p uniform is uniform whatever π: over 2,000
// sessions with the same π, where π_s sends position 0 is uniform over 5
// places (χ² with 4 degrees of freedom below 18.47, p = 0.001).
BOOST_AUTO_TEST_CASE(what_the_others_see_of_the_permutation_is_uniform) {
  const std::size_t len = 5;
  std::vector<std::uint32_t> pi{3, 1, 4, 0, 2};
  std::vector<double> count(len, 0);
  const int runs = 2000;
  for (int run = 0; run < runs; ++run) {
    dealer d(2, 1000 + static_cast<std::uint64_t>(run));
    correlations owner(0, 2, d.seed_of(0));
    correlation_request request;
    auto corr_owner = owner.next_permutation(0, len, 1, request);
    std::vector<std::uint32_t> inverse(len);
    for (std::size_t i = 0; i < len; ++i)
      inverse[corr_owner.pi_p[i]] = static_cast<std::uint32_t>(i);
    count[inverse[pi[0]]] += 1;
  }
  double chi2 = 0, expected = static_cast<double>(runs) / len;
  for (auto c : count)
    chi2 += (c - expected) * (c - expected) / expected;
  BOOST_TEST(chi2 < 18.47);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
