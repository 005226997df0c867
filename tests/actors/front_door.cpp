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

using namespace veil;
using namespace veil::test;
using namespace std::chrono_literals;
using caf::io::basp::message_type;

namespace {

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

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

// A door and a tunnel facing each other, both directions busy at once (as
// when parties on two nodes exchange through the coordinator): neither
// relay may wait on a write while the other waits on it.
BOOST_AUTO_TEST_CASE(both_directions_flow_at_once) {
  auto middleman = listener(); // the node's, behind the door
  std::ostringstream log;
  std::optional<actors::front_door> door;
  door.emplace(
      actors::front_door::options{"127.0.0.1",
                                  0,
                                  static_cast<std::uint16_t>(middleman.second),
                                  {},
                                  {},
                                  {}},
      log);
  actors::tunnel t("127.0.0.1", door->port(), {});
  const std::size_t size = 16u << 20;
  // Each end sends its handshake, then one 16 MiB frame, while it reads
  // everything the other end sends.
  auto talk = [&](int fd, message_type hello, std::size_t& received) {
    std::thread writer([&, fd] {
      send_all(fd,
               basp_header(hello, 0,
                           hello == message_type::server_handshake ? 1 : 0));
      send_all(fd, basp_header(message_type::direct_message,
                               static_cast<std::uint32_t>(size), 0, 7));
      send_all(fd, std::vector<char>(size, 'x'));
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
  auto started = std::chrono::steady_clock::now();
  std::thread node([&] {
    int fd = ::accept(middleman.first, nullptr, nullptr);
    talk(fd, message_type::server_handshake, at_node);
    ::close(fd);
  });
  int coordinator = dial(t.local_port());
  talk(coordinator, message_type::client_handshake, at_coordinator);
  node.join();
  auto took = std::chrono::steady_clock::now() - started;
  auto want = 2 * caf::io::basp::header_size + size;
  BOOST_TEST(at_node == want);
  BOOST_TEST(at_coordinator == want);
  BOOST_TEST((took < 10s));
  BOOST_TEST(t.error().empty(), t.error());
  ::close(coordinator);
  door.reset();
  ::close(middleman.first);
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
