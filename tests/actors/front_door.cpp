// The relays at the network's edge (actors/front_door.hpp), without CAF
// behind them: what a node's door closes and why (a first frame that is
// not the handshake, a frame over the limit, no handshake in time, one
// connection too many), what a coordinator's tunnel refuses from a node,
// and which certificates --allow admits.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <poll.h>

#include "actors/front_door.hpp"
#include "tests/support/basp.hpp"
#include "tests/support/text.hpp"

using namespace veil;
using namespace veil::test;
using namespace std::chrono_literals;
using caf::io::basp::message_type;

namespace {

using veil::test::contains;

/// Whether the peer closes fd within `limit`.
bool closed_within(int fd, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  char buf[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 50) > 0 && ::recv(fd, buf, sizeof buf, 0) <= 0)
      return true;
  }
  return false;
}

void send_all(int fd, const std::vector<char>& b) {
  BOOST_REQUIRE(::send(fd, b.data(), b.size(), MSG_NOSIGNAL) ==
                static_cast<ssize_t>(b.size()));
}

/// A door on 127.0.0.1 in front of a socket nobody reads (the kernel
/// accepts for it), with small limits; its log once it is closed.
struct door_under_test {
  std::pair<int, int> inner = listener();
  std::ostringstream log;
  std::optional<actors::front_door> door;

  explicit door_under_test(
      std::size_t connections = 4,
      std::chrono::milliseconds handshake_timeout = 300ms) {
    actors::frame_limits l;
    l.max_connections = connections;
    l.handshake_timeout = handshake_timeout;
    l.max_handshake_bytes = 256;
    l.max_frame_bytes = 1024;
    door.emplace(
        actors::front_door::options{"127.0.0.1",
                                    0,
                                    static_cast<std::uint16_t>(inner.second),
                                    {},
                                    {},
                                    l},
        log);
  }
  ~door_under_test() { ::close(inner.first); }

  int port() const { return door->port(); }

  std::string closed_log() {
    door.reset(); // joins its threads: the log is complete
    return log.str();
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(front_door)

BOOST_AUTO_TEST_CASE(the_door_closes_what_is_not_a_session) {
  door_under_test d;
  // A first frame that is not the handshake.
  int a = dial(d.port());
  send_all(a, basp_header(message_type::direct_message, 8, 0, 1));
  BOOST_TEST(closed_within(a, 2s));
  ::close(a);
  // A handshake, then a frame over the limit.
  int b = dial(d.port());
  send_all(b, basp_header(message_type::client_handshake, 16));
  send_all(b, std::vector<char>(16, 'x'));
  send_all(b, basp_header(message_type::direct_message, 4096, 0, 1));
  BOOST_TEST(closed_within(b, 2s));
  ::close(b);
  // A handshake over its own limit.
  int c = dial(d.port());
  send_all(c, basp_header(message_type::client_handshake, 257));
  BOOST_TEST(closed_within(c, 2s));
  ::close(c);
  // Nothing at all.
  int e = dial(d.port());
  BOOST_TEST(closed_within(e, 2s));
  ::close(e);
  auto log = d.closed_log();
  BOOST_TEST(contains(log, "a first frame that is not the BASP handshake"),
             log);
  BOOST_TEST(contains(log, "a frame of 4096 bytes (at most 1024)"), log);
  BOOST_TEST(contains(log, "a frame of 257 bytes before the handshake (at "
                           "most 256)"),
             log);
  BOOST_TEST(contains(log, "no BASP handshake in time"), log);
  BOOST_TEST(contains(log, "without TLS"), log);
}

BOOST_AUTO_TEST_CASE(the_door_counts_its_connections) {
  // The first connection's handshake time is long enough that a loaded
  // machine (ctest -j2) cannot end it before the door sees the second (with
  // 300 ms the test failed once under load, most likely so: the second was
  // then served instead of refused).
  door_under_test d(1, 1500ms);
  int first = dial(d.port());
  std::this_thread::sleep_for(100ms); // the door has it
  int second = dial(d.port());
  BOOST_TEST(closed_within(second, 1s)); // refused at once
  ::close(second);
  BOOST_TEST(closed_within(first, 4s)); // after the handshake time
  ::close(first);
  auto log = d.closed_log();
  BOOST_TEST(contains(log, "refused: 1 connections are open (the limit)"), log);
}

BOOST_AUTO_TEST_CASE(a_tunnel_refuses_what_a_node_should_not_send) {
  auto node = listener(); // plays the node
  actors::frame_limits l;
  l.max_handshake_bytes = 256;
  actors::tunnel t("127.0.0.1", static_cast<std::uint16_t>(node.second), {}, l);
  int caf_side = dial(t.local_port()); // what CAF's middleman would open
  pollfd p{node.first, POLLIN, 0};
  BOOST_REQUIRE(::poll(&p, 1, 2000) == 1);
  int from_tunnel = ::accept(node.first, nullptr, nullptr);
  send_all(from_tunnel,
           basp_header(message_type::server_handshake, 1 << 20, 1));
  BOOST_TEST(closed_within(caf_side, 2s));
  for (int i = 0; i < 40 && t.error().empty(); ++i)
    std::this_thread::sleep_for(50ms);
  BOOST_TEST(contains(t.error(), "the node sent a frame of 1048576 bytes "
                                 "before the handshake"),
             t.error());
  ::close(caf_side);
  ::close(from_tunnel);
  ::close(node.first);
}

namespace {

/// Sends all of b without asserting (for threads other than the test's);
/// whether it could.
bool send_bytes(int fd, const std::vector<char>& b) {
  std::size_t at = 0;
  while (at < b.size()) {
    auto w = ::send(fd, b.data() + at, b.size() - at, MSG_NOSIGNAL);
    if (w <= 0)
      return false;
    at += static_cast<std::size_t>(w);
  }
  return true;
}

/// What one end of a session sends: its handshake (the node's is the
/// server's), then one frame of `size` bytes.
std::vector<char> session_bytes(bool node, std::size_t size) {
  auto b = basp_header(node ? message_type::server_handshake
                            : message_type::client_handshake,
                       0, node ? 1 : 0);
  auto h = basp_header(message_type::direct_message,
                       static_cast<std::uint32_t>(size), 0, 7);
  b.insert(b.end(), h.begin(), h.end());
  b.resize(b.size() + size, 'x');
  return b;
}

/// What read_to_end read: its bytes, and whether the peer's end came
/// after them (rather than an error or the time limit).
struct received {
  std::size_t bytes = 0;
  bool ended = false;
};

/// Reads fd until its peer ends what it sends, an error, or `limit`.
received read_to_end(int fd, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  std::vector<char> buf(1 << 16);
  std::size_t got = 0;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        end - std::chrono::steady_clock::now());
    pollfd p{fd, POLLIN, 0};
    if (left <= 0ms || ::poll(&p, 1, static_cast<int>(left.count())) <= 0)
      return {got, false};
    auto r = ::recv(fd, buf.data(), buf.size(), 0);
    if (r <= 0)
      return {got, r == 0};
    got += static_cast<std::size_t>(r);
  }
}

/// A door and a tunnel facing each other, plain TCP, with a listening
/// socket playing the node's middleman behind the door.
struct relays {
  std::pair<int, int> middleman = listener();
  std::ostringstream log;
  std::optional<actors::front_door> door;
  std::optional<actors::tunnel> tunnel;

  explicit relays(actors::frame_limits limits = {}) {
    actors::front_door::options o;
    o.host = "127.0.0.1";
    o.inner_port = static_cast<std::uint16_t>(middleman.second);
    o.limits = limits;
    door.emplace(o, log);
    tunnel.emplace("127.0.0.1", door->port(), o.tls, limits);
  }
  ~relays() {
    tunnel.reset();
    door.reset();
    ::close(middleman.first);
  }

  /// The coordinator's connection through both, and the node's end of it.
  std::pair<int, int> connect() {
    int coordinator = dial(tunnel->local_port());
    pollfd p{middleman.first, POLLIN, 0};
    BOOST_REQUIRE(::poll(&p, 1, 5000) == 1);
    return {coordinator, ::accept(middleman.first, nullptr, nullptr)};
  }
};

} // namespace

// A door and a tunnel facing each other, both directions busy at once (as
// when parties on two nodes exchange through the coordinator): neither
// relay may wait on a write while the other waits on it. The node ends
// its side as soon as its frame is written, while the coordinator's is
// still on its way to it and its own still in the relays: both arrive
// whole.
BOOST_AUTO_TEST_CASE(both_directions_flow_at_once) {
  relays r;
  const std::size_t size = 16u << 20;
  // Each end sends its handshake, then one 16 MiB frame, while it reads
  // everything the other end sends.
  auto talk = [&](int fd, bool node, std::size_t& received, bool& sent) {
    std::thread writer([&, fd, node] {
      sent = send_bytes(fd, session_bytes(node, size));
      if (node) // at once, while its bytes may still be in the relays
        sent = sent && ::shutdown(fd, SHUT_WR) == 0;
    });
    std::vector<char> buf(1 << 16);
    auto want = 2 * caf::io::basp::header_size + size;
    while (received < want) {
      pollfd p{fd, POLLIN, 0};
      if (::poll(&p, 1, 10000) <= 0)
        break;
      auto r = ::recv(fd, buf.data(), buf.size(), 0);
      if (r <= 0)
        break;
      received += static_cast<std::size_t>(r);
    }
    writer.join();
  };
  std::size_t at_node = 0, at_coordinator = 0;
  bool node_sent = false, coordinator_sent = false;
  auto started = std::chrono::steady_clock::now();
  auto [coordinator, node_fd] = r.connect();
  std::thread node([&, fd = node_fd] {
    talk(fd, true, at_node, node_sent);
    ::close(fd);
  });
  talk(coordinator, false, at_coordinator, coordinator_sent);
  node.join();
  auto took = std::chrono::steady_clock::now() - started;
  auto want = 2 * caf::io::basp::header_size + size;
  BOOST_TEST(node_sent);
  BOOST_TEST(coordinator_sent);
  BOOST_TEST(at_node == want);
  BOOST_TEST(at_coordinator == want);
  // The node's end follows its bytes.
  auto rest = read_to_end(coordinator, 5s);
  BOOST_TEST(rest.bytes == 0u);
  BOOST_TEST(rest.ended);
  // (Milliseconds unloaded; a relay waiting on the other shows as a 10 s
  // poll timeout above.)
  BOOST_TEST((took < 10s));
  BOOST_TEST(r.tunnel->error().empty(), r.tunnel->error());
  ::close(coordinator);
}

namespace {

/// One end sends everything and ends its side while the other has sent
/// nothing yet; then the other sends. Each must get every byte, then the
/// end: a relay that closed the whole connection at the first end would
/// drop what is still in flight towards it, and all the other sends after.
void one_side_ends_first(bool node_first) {
  relays r;
  auto [coordinator, node] = r.connect();
  int first = node_first ? node : coordinator;
  int second = node_first ? coordinator : node;
  const std::size_t size = 4u << 20;
  auto from_first = session_bytes(node_first, size);
  auto from_second = session_bytes(!node_first, size);
  bool first_sent = false;
  received at_first;
  std::thread t([&] {
    first_sent =
        send_bytes(first, from_first) && ::shutdown(first, SHUT_WR) == 0;
    at_first = read_to_end(first, 10s);
  });
  auto at_second = read_to_end(second, 10s);
  bool second_sent =
      send_bytes(second, from_second) && ::shutdown(second, SHUT_WR) == 0;
  t.join();
  BOOST_TEST(first_sent);
  BOOST_TEST(at_second.bytes == from_first.size());
  BOOST_TEST(at_second.ended); // after them
  BOOST_TEST(second_sent);
  BOOST_TEST(at_first.bytes == from_second.size());
  BOOST_TEST(at_first.ended);
  ::close(first);
  ::close(second);
  BOOST_TEST(r.tunnel->error().empty(), r.tunnel->error());
}

} // namespace

BOOST_AUTO_TEST_CASE(the_node_ends_first_and_still_receives) {
  one_side_ends_first(true);
}

BOOST_AUTO_TEST_CASE(the_coordinator_ends_first_and_still_receives) {
  one_side_ends_first(false);
}

// Once one side has ended, a peer that neither sends nor ends holds the
// relay only for half_closed_idle.
BOOST_AUTO_TEST_CASE(a_half_closed_relay_ends_when_idle) {
  actors::frame_limits l;
  l.half_closed_idle = 300ms;
  relays r(l);
  auto [coordinator, node] = r.connect();
  auto hello = session_bytes(false, 0);
  hello.resize(caf::io::basp::header_size); // the handshake only
  send_all(coordinator, hello);
  auto started = std::chrono::steady_clock::now();
  send_all(node, basp_header(message_type::server_handshake, 0, 1));
  ::shutdown(node, SHUT_WR);
  // The coordinator gets the node's end, and keeps its own side open.
  auto at_coordinator = read_to_end(coordinator, 5s);
  BOOST_TEST(at_coordinator.bytes == caf::io::basp::header_size);
  BOOST_TEST(at_coordinator.ended);
  // The door closes the node's connection after the idle time.
  auto at_node = read_to_end(node, 5s);
  BOOST_TEST(at_node.bytes == caf::io::basp::header_size);
  BOOST_TEST(at_node.ended);
  auto took = std::chrono::steady_clock::now() - started;
  BOOST_TEST((took >= 300ms));
  BOOST_TEST((took < 5s));
  ::close(coordinator);
  ::close(node);
}

BOOST_AUTO_TEST_CASE(allow_admits_by_common_name_or_fingerprint) {
  actors::peer_certificate c{"CN=bank,O=Bank plc", {"bank"}, "sha256:ab12"};
  BOOST_TEST(actors::allowed({}, c));
  BOOST_TEST(actors::allowed({"CN=bank"}, c));
  BOOST_TEST(actors::allowed({"CN=shop", "sha256:ab12"}, c));
  BOOST_TEST(!actors::allowed({"CN=ban"}, c));
  BOOST_TEST(!actors::allowed({"sha256:ab"}, c));
  BOOST_TEST(!actors::allowed({"CN=shop"}, c));
  // An escaped comma in a value forges a boundary in the subject's text
  // ("O=x\\,CN=shop,CN=mallory"); the common names say who it is.
  actors::peer_certificate forged{
      "O=x\\,CN=shop,CN=mallory", {"mallory"}, "sha256:cd"};
  BOOST_TEST(!actors::allowed({"CN=shop"}, forged));
  actors::peer_certificate two{"CN=a,CN=bank", {"a", "bank"}, "sha256:ef"};
  BOOST_TEST(actors::allowed({"CN=bank"}, two));
}

BOOST_AUTO_TEST_SUITE_END()
