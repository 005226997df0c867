#pragma once

// n parties in one process, driven round by round: each party's task runs
// until it waits at an exchange, then the words are routed and every party
// resumes. What tests and in-process simulations use; a session's actors
// route the same exchanges as messages. Counts rounds and words, and
// (with `link`) the time an emulated network would add.

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "protocols/mpc/dealer.hpp"
#include "protocols/mpc/party.hpp"

namespace veil::protocols::mpc {

struct traffic {
  std::uint64_t rounds = 0;
  std::uint64_t words = 0; ///< every word one party sent another
  std::uint64_t bytes() const { return 8 * words; }
};

/// The parties and their dealer, set up together.
class local_network {
public:
  /// `seed` 0: every seed from the operating system; otherwise a
  /// reproducible run (tests).
  local_network(int parties, std::uint64_t seed = 0);

  int parties() const { return static_cast<int>(parties_.size()); }
  party& at(int p) { return *parties_.at(static_cast<std::size_t>(p)); }
  const mpc::dealer& dealer() const { return dealer_; }
  const mpc::traffic& traffic() const { return traffic_; }
  /// Words the dealer sent (its corrections; the seeds besides): the
  /// offline traffic, apart from traffic().
  std::uint64_t dealer_words() const { return dealer_.correction_words(); }

  /// Every request the last party made of the dealer, in order: what a
  /// dealer must answer for the same program (every request depends on
  /// the program's public shapes only, never on the data).
  const std::vector<correlation_request>& requests() const { return requests_; }

  /// Calls `observer(to, from, words)` for every message delivered: a
  /// party's view, for tests of what it learns.
  void watch(std::function<void(int, int, const words&)> observer) {
    observer_ = std::move(observer);
  }

  /// Runs `program` at every party to its end: the results by party.
  /// Throws std::logic_error when the parties fall out of step (one
  /// finished while another waits), or what a party's task threw.
  template <class T>
  std::vector<T> run(const std::function<task<T>(party&)>& program) {
    std::vector<task<T>> tasks;
    for (auto& p : parties_)
      tasks.push_back(program(*p));
    for (auto& t : tasks)
      t.start();
    try {
      drive([&](std::size_t i) { return tasks[i].done(); });
    } catch (const std::logic_error&) {
      for (auto& t : tasks) // a party's own error says more
        if (t.done())
          (void)t.result();
      throw;
    }
    std::vector<T> out;
    for (auto& t : tasks)
      out.push_back(t.result());
    return out;
  }

private:
  void drive(const std::function<bool(std::size_t)>& done);

  mpc::dealer dealer_;
  std::vector<std::unique_ptr<party>> parties_;
  mpc::traffic traffic_;
  std::vector<correlation_request> requests_;
  std::function<void(int, int, const words&)> observer_;
};

} // namespace veil::protocols::mpc
