#pragma once

// Delivers the outboxes of several protocol roles among themselves, in
// memory, as the actors would: FIFO per sender-receiver pair, with the
// order between pairs drawn from a seeded generator.

#include <deque>
#include <functional>
#include <map>
#include <random>
#include <stdexcept>
#include <string>

namespace veil::test {

template <class Message, class Envelope, class Outcome>
class pump {
public:
  using handler = std::function<Outcome(int from, const Message&)>;

  explicit pump(std::uint64_t seed) : rng_(seed) {}

  void add(int party, handler h) { handlers_[party] = std::move(h); }

  /// Queues what `from` wants to send.
  void post(int from, std::vector<Envelope> out) {
    for (auto& e : out) {
      queues_[{from, e.to}].push_back(std::move(e.msg));
    }
  }

  /// Delivers until no message is left; throws on a role's error.
  void run() {
    while (true) {
      std::vector<std::pair<int, int>> ready;
      for (auto& [key, q] : queues_)
        if (!q.empty())
          ready.push_back(key);
      if (ready.empty())
        return;
      auto key = ready[std::uniform_int_distribution<std::size_t>(
          0, ready.size() - 1)(rng_)];
      auto msg = std::move(queues_[key].front());
      queues_[key].pop_front();
      ++delivered_;
      auto it = handlers_.find(key.second);
      if (it == handlers_.end())
        throw std::runtime_error("pump: no party " +
                                 std::to_string(key.second));
      auto r = it->second(key.first, msg);
      if (!r)
        throw std::runtime_error("pump: party " + std::to_string(key.second) +
                                 " refused at " + r.error().step + ": " +
                                 r.error().reason);
      post(key.second, std::move(*r));
    }
  }

  std::size_t delivered() const { return delivered_; }

private:
  std::mt19937_64 rng_;
  std::map<int, handler> handlers_;
  std::map<std::pair<int, int>, std::deque<Message>> queues_;
  std::size_t delivered_ = 0;
};

} // namespace veil::test
