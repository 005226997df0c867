#include "protocols/mpc/local_network.hpp"

namespace veil::protocols::mpc {

local_network::local_network(int parties, std::uint64_t seed)
    : dealer_(parties, seed) {
  for (int p = 0; p < parties; ++p)
    parties_.push_back(std::make_unique<party>(p, parties, dealer_.seed_of(p),
                                               seed == 0 ? 0 : seed + 17));
}

void local_network::drive(const std::function<bool(std::size_t)>& done) {
  auto n = parties_.size();
  while (true) {
    // The dealer answers at once here (an actor in a session).
    for (bool asked = true; asked;) {
      asked = false;
      for (std::size_t i = 0; i < n; ++i)
        if (!done(i) && parties_[i]->waiting_for_dealer()) {
          requests_.push_back(parties_[i]->request());
          parties_[i]->deliver_correction(dealer_.answer(requests_.back()));
          asked = true;
        }
    }
    std::size_t finished = 0;
    for (std::size_t i = 0; i < n; ++i)
      finished += done(i);
    if (finished == n)
      return;
    for (std::size_t i = 0; i < n; ++i)
      if (!done(i) && !parties_[i]->waiting())
        throw std::logic_error("mpc: party " + std::to_string(i) +
                               " neither waits nor finished");
    if (finished != 0) {
      // Let the waiting ones fail loudly rather than hang: a finished
      // party will never answer.
      throw std::logic_error("mpc: the parties fell out of step (" +
                             std::to_string(finished) + " of " +
                             std::to_string(n) + " finished)");
    }
    std::vector<std::vector<words>> inbox(n, std::vector<words>(n));
    for (std::size_t from = 0; from < n; ++from) {
      const auto& out = parties_[from]->outgoing();
      for (std::size_t to = 0; to < n; ++to) {
        if (to == from)
          continue;
        traffic_.words += out[to].size();
        if (observer_ && !out[to].empty())
          observer_(static_cast<int>(to), static_cast<int>(from), out[to]);
        inbox[to][from] = out[to];
      }
    }
    ++traffic_.rounds;
    for (std::size_t i = 0; i < n; ++i)
      parties_[i]->deliver(std::move(inbox[i]));
  }
}

} // namespace veil::protocols::mpc
