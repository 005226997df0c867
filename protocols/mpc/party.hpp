#pragma once

// One participant of an n-party computation on additive shares (spec
// privet §4.2): its index, its correlated randomness, and the single
// communication step every protocol is built from, exchange(): send a
// vector of words to each other party and receive one from each, all
// parties in the same round. A party's protocol is a task (task.hpp) that
// suspends at each exchange; whoever drives the party (local_network, or
// an actor) routes the words and resumes it. Every party runs the same
// program, so the exchanges of all parties line up round by round.

#include <coroutine>
#include <cstdint>
#include <span>
#include <vector>

#include "protocols/crypto/sodium.hpp"
#include "protocols/mpc/dealer.hpp"
#include "protocols/mpc/ring.hpp"
#include "protocols/mpc/task.hpp"

namespace veil::protocols::mpc {

class party {
public:
  /// Party `id` of `parties`; `own_seed` keys the randomness it shares
  /// its own inputs with (0: the operating system's).
  party(int id, int parties, const crypto::key32& dealer_seed,
        std::uint64_t own_seed = 0);
  party(const party&) = delete;
  party& operator=(const party&) = delete;

  int id() const { return id_; }
  int parties() const { return parties_; }
  /// P_1 of the paper: the party that adds public constants.
  bool first() const { return id_ == 0; }
  /// This party's shares of the dealer's next `k` items of `kind` (the
  /// last party waits for the dealer's corrections: a suspension like an
  /// exchange, answered by deliver_correction()).
  task<shares_of> correlated(item kind, std::size_t k);
  /// The same for `spec`'s kind, count, bits and operands (its call is
  /// the next of its kind).
  task<shares_of> correlated(correlation_request spec);
  task<permutation_shares> correlated_permutation(int owner, std::size_t n,
                                                  std::size_t vectors);

  struct exchange_awaiter {
    party& self;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept {
      self.waiting_ = h;
      self.for_dealer_ = false;
    }
    std::vector<words> await_resume() { return std::move(self.incoming_); }
  };
  struct dealer_awaiter {
    party& self;
    bool await_ready() const noexcept { return false; }
    void await_suspend(std::coroutine_handle<> h) noexcept {
      self.waiting_ = h;
      self.for_dealer_ = true;
    }
    words await_resume() { return std::move(self.correction_); }
  };
  /// One round: send(to_each) puts to_each[p] out for every party p ≠
  /// id() (to_each has parties() entries; its own is ignored), and
  /// co_await receive() resumes with what each sent (the own entry
  /// empty). Two steps, so that no temporary lives across the suspension:
  /// g++ 12 destroys some of those twice (a conditional's, a parameter
  /// object's). Keep co_await expressions free of temporaries with
  /// destructors everywhere in this folder.
  void send(std::vector<words>&& to_each);
  exchange_awaiter receive() { return {*this}; }

  /// Share openings (1 round each): the sum of every party's share, to
  /// every party; the XOR, for boolean shares; the sum to `owner` only
  /// (the others get an empty vector).
  task<words> open(words share);
  task<words> open_xor(words share);
  task<words> reveal_to(int owner, words share);
  /// `owner` shares `values` (its own input; the others pass an empty
  /// vector and the length): every party's share, 1 round.
  task<words> share_from(int owner, words values, std::size_t count);
  /// This party's share of a public vector (P_1 holds it, the others 0).
  words constant(std::span<const word> values) const;

  // For the driver.
  /// Waiting at an exchange (outgoing() holds its words) ...
  bool waiting() const { return waiting_ && !for_dealer_; }
  /// ... or for the dealer's answer to request().
  bool waiting_for_dealer() const { return waiting_ && for_dealer_; }
  const correlation_request& request() const { return request_; }
  /// Resumes the party with the dealer's answer.
  void deliver_correction(words answer);
  const std::vector<words>& outgoing() const { return outgoing_; }
  /// Delivers from_each (what each party sent this one) and resumes the
  /// suspended task until its next exchange or its end.
  void deliver(std::vector<words> from_each);

private:
  int id_, parties_;
  correlations source_;
  crypto::key32 own_key_;
  std::uint64_t own_calls_ = 0;
  std::coroutine_handle<> waiting_;
  bool for_dealer_ = false;
  correlation_request request_;
  words correction_;
  std::vector<words> outgoing_, incoming_;
};

} // namespace veil::protocols::mpc
