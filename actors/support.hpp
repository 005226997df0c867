#pragma once

// Small pieces every party actor and coordinator shares: wall time, the
// period of the liveness ticks, and the byte counts per message type.

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include <caf/actor_addr.hpp>

#include "protocols/session/wire.hpp"

namespace veil::actors {

using clock_type = std::chrono::steady_clock;

/// Seconds from `t` to now.
inline double seconds_since(clock_type::time_point t) {
  return std::chrono::duration<double>(clock_type::now() - t).count();
}

/// How often an actor with silence timeout `timeout` checks on its peers:
/// an eighth of it, from 10 ms to 1 s.
inline std::chrono::milliseconds
tick_period(std::chrono::milliseconds timeout) {
  using namespace std::chrono_literals;
  return std::clamp<std::chrono::milliseconds>(timeout / 8, 10ms, 1000ms);
}

/// Payload bytes of one message type.
struct byte_count {
  std::uint64_t sent = 0;
  std::uint64_t received = 0;
};

/// By message type.
using byte_counts = std::map<std::string, byte_count>;

/// The report of `party`'s byte counts.
inline protocols::session::byte_stats byte_stats_of(const std::string& party,
                                                    const byte_counts& bytes) {
  protocols::session::byte_stats s;
  s.party = party;
  for (const auto& [type, n] : bytes) {
    s.types.push_back(type);
    s.sent.push_back(n.sent);
    s.received.push_back(n.received);
  }
  return s;
}

/// The index of `addr` among `peers`, other than `self`; -1 for none.
inline std::int32_t peer_index_of(const std::vector<caf::actor_addr>& peers,
                                  const caf::actor_addr& addr,
                                  std::int32_t self) {
  for (std::size_t i = 0; i < peers.size(); ++i)
    if (peers[i] == addr && static_cast<std::int32_t>(i) != self)
      return static_cast<std::int32_t>(i);
  return -1;
}

/// "histograms (tree 3, depth 2)": a protocol message's name (`name`) and,
/// where it has them, its tree and depth (a depth alone: "(level 2)"), or
/// its step.
template <class Message>
std::string step_text(std::string name, const Message& m) {
  std::visit(
      [&](const auto& x) {
        if constexpr (
            requires { x.tree; } && requires { x.depth; })
          name += " (tree " + std::to_string(x.tree) + ", depth " +
                  std::to_string(x.depth) + ")";
        else if constexpr (requires { x.tree; })
          name += " (tree " + std::to_string(x.tree) + ")";
        else if constexpr (requires { x.depth; })
          name += " (level " + std::to_string(x.depth) + ")";
        else if constexpr (requires { x.step; }) {
          if constexpr (std::is_same_v<std::decay_t<decltype(x.step)>,
                                       std::string>)
            name += " (step " + x.step + ")";
          else
            name += " (step " + std::to_string(x.step) + ")";
        }
      },
      m);
  return name;
}

} // namespace veil::actors
