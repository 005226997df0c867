#pragma once

// What the MPC tests share: running a program at n parties on inputs that
// party 0 shares, and the plaintext they are checked against.

#include <functional>
#include <random>

#include "protocols/mpc/local_network.hpp"

namespace veil::test::mpc {

using namespace veil::protocols::mpc;

/// The party counts every block is tested with (spec privet §8.4).
inline const int party_counts[] = {2, 3, 4, 5};

/// Runs `program` on shares of `inputs` (dealt by party 0, one vector per
/// input) at `n` parties and returns what party 0 returns.
inline words
run_on(int n, std::vector<words> inputs,
       std::function<task<words>(party&, std::vector<words>)> program,
       traffic* counted = nullptr, std::uint64_t seed = 7) {
  local_network net(n, seed);
  auto out = net.run<words>([&](party& p) -> task<words> {
    std::vector<words> shares;
    for (const auto& in : inputs) {
      // No temporaries in a co_await's expression: g++ 12 destroys some
      // twice (a conditional's, an initializer list's).
      words mine;
      if (p.id() == 0)
        mine = in;
      auto share = co_await p.share_from(0, std::move(mine), in.size());
      shares.push_back(std::move(share));
    }
    co_return co_await program(p, std::move(shares));
  });
  if (counted)
    *counted = net.traffic();
  return out[0];
}

/// Opens a shared result to every party.
inline task<words> opened(party& p, task<words> t) {
  co_return co_await p.open(co_await std::move(t));
}

} // namespace veil::test::mpc
