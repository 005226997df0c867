#include "protocols/mpc/party.hpp"

#include <sodium.h>

#include <stdexcept>
#include <string>
#include <utility>

#include "protocols/crypto/masks.hpp"
#include "protocols/crypto/random.hpp"

namespace veil::protocols::mpc {

namespace {

int checked(int id, int parties) {
  if (parties < 2 || id < 0 || id >= parties)
    throw std::invalid_argument("mpc::party: no such party");
  return id;
}

} // namespace

party::party(int id, int parties, const crypto::key32& dealer_seed,
             std::uint64_t own_seed)
    : id_(checked(id, parties)), parties_(parties),
      source_(id, parties, dealer_seed) {
  crypto::ensure_sodium();
  if (own_seed == 0) {
    randombytes_buf(own_key_.data(), own_key_.size());
  } else {
    crypto::seeded_random rng(own_seed * 1000003u + static_cast<unsigned>(id));
    for (std::size_t i = 0; i < own_key_.size(); i += 8) {
      auto w = rng();
      for (std::size_t b = 0; b < 8; ++b)
        own_key_.data()[i + b] = static_cast<std::uint8_t>(w >> (8 * b));
    }
  }
}

void party::send(std::vector<words>&& to_each) {
  if (to_each.size() != static_cast<std::size_t>(parties_))
    throw std::invalid_argument("mpc::party::send: one vector per party");
  to_each[static_cast<std::size_t>(id_)].clear();
  outgoing_ = std::move(to_each);
}

void party::deliver(std::vector<words> from_each) {
  if (!waiting())
    throw std::logic_error("mpc::party::deliver: the party is not waiting");
  incoming_ = std::move(from_each);
  outgoing_.clear();
  std::exchange(waiting_, {}).resume();
}

void party::deliver_correction(words answer) {
  if (!waiting_for_dealer())
    throw std::logic_error("mpc::party::deliver_correction: the party is "
                           "not waiting for the dealer");
  correction_ = std::move(answer);
  std::exchange(waiting_, {}).resume();
}

task<shares_of> party::correlated(item kind, std::size_t k) {
  correlation_request spec;
  spec.kind = kind;
  spec.count = k;
  co_return co_await correlated(spec);
}

task<shares_of> party::correlated(correlation_request spec) {
  auto mine = source_.next(spec);
  if (source_.needs_corrections() && corrected(spec.kind)) {
    request_ = spec;
    auto answer = co_await dealer_awaiter{*this};
    correlations::correct(mine, spec.kind, spec.count, answer);
  }
  co_return mine;
}

task<permutation_shares> party::correlated_permutation(int owner, std::size_t n,
                                                       std::size_t vectors) {
  correlation_request request;
  auto mine = source_.next_permutation(owner, n, vectors, request);
  if (source_.needs_corrections()) {
    request_ = request;
    auto answer = co_await dealer_awaiter{*this};
    correlations::correct(mine, n, answer);
  }
  co_return mine;
}

namespace {

/// Folds every peer's words of `got` into `share` with `fold` (+ or ^),
/// checking their lengths.
template <class Fold>
void fold_in(const std::vector<words>& got, int self, words& share, Fold fold) {
  for (std::size_t p = 0; p < got.size(); ++p) {
    if (p == static_cast<std::size_t>(self))
      continue;
    if (got[p].size() != share.size())
      throw std::runtime_error("mpc: party " + std::to_string(p) +
                               " sent a vector of another length");
    for (std::size_t i = 0; i < share.size(); ++i)
      share[i] = fold(share[i], got[p][i]);
  }
}

} // namespace

task<words> party::open(words share) {
  send(std::vector<words>(static_cast<std::size_t>(parties_), share));
  auto got = co_await receive();
  fold_in(got, id_, share, [](word a, word b) { return a + b; });
  co_return share;
}

task<words> party::open_xor(words share) {
  send(std::vector<words>(static_cast<std::size_t>(parties_), share));
  auto got = co_await receive();
  fold_in(got, id_, share, [](word a, word b) { return a ^ b; });
  co_return share;
}

task<words> party::reveal_to(int owner, words share) {
  std::vector<words> out(static_cast<std::size_t>(parties_));
  if (owner != id_)
    out[static_cast<std::size_t>(owner)] = share;
  send(std::move(out));
  auto got = co_await receive();
  if (owner != id_)
    co_return words{};
  fold_in(got, id_, share, [](word a, word b) { return a + b; });
  co_return share;
}

task<words> party::share_from(int owner, words values, std::size_t count) {
  auto n = static_cast<std::size_t>(parties_);
  std::vector<words> out(n);
  if (owner == id_) {
    if (values.size() != count)
      throw std::invalid_argument("mpc::share_from: wrong length");
    // n − 1 uniform vectors from this party's own stream, one per peer.
    auto key = crypto::derive_key(own_key_, own_calls_++, "mpcShare");
    words stream((n - 1) * count);
    crypto::expand(key, stream);
    std::size_t k = 0;
    for (std::size_t p = 0; p < n; ++p) {
      if (p == static_cast<std::size_t>(id_))
        continue;
      out[p].assign(stream.begin() + static_cast<long>(k * count),
                    stream.begin() + static_cast<long>((k + 1) * count));
      for (std::size_t i = 0; i < count; ++i)
        values[i] -= out[p][i];
      ++k;
    }
  }
  send(std::move(out));
  auto got = co_await receive();
  if (owner == id_)
    co_return values;
  auto& mine = got[static_cast<std::size_t>(owner)];
  if (mine.size() != count)
    throw std::runtime_error("mpc: party " + std::to_string(owner) +
                             " shared a vector of another length");
  co_return std::move(mine);
}

words party::constant(std::span<const word> values) const {
  if (first())
    return words(values.begin(), values.end());
  return words(values.size(), 0);
}

} // namespace veil::protocols::mpc
