// A node as an attacker meets it (issue "Nodes that trust no one"): a real
// `veil node` process on 127.0.0.1, driven by a coordinator of this test's
// own making that skips every check `veil train` makes before it sends
// anything. The node serves only the datasets it was started with, by
// name, only their allowed columns, only to the coordinator that asked for
// the party; its errors carry no path and no file content; after every
// refusal it stays up and serves the next honest session.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <caf/actor_system.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/io/basp/header.hpp>
#include <caf/io/middleman.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/errors.hpp"
#include "actors/interfaces.hpp"
#include "actors/remote.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "messages/version.hpp"
#include "protocols/session/wire.hpp"
#include "tests/integration/process.hpp"
#include "tests/support/basp.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil;
using namespace veil::test;
using namespace std::chrono_literals;
namespace sess = protocols::session;

namespace {

/// A node serving three datasets (not --once), and a CAF client that talks
/// to it directly.
struct hostile_node {
  temp_dir dir;
  std::string shop =
      dir.file("shop.csv", "id,a,b,secret,label\n"
                           "123-45-6789,1,2,TOP SECRET CELL,0\n"
                           "987-65-4321,3,4,TOP SECRET CELL,1\n"
                           "555-55-5555,5,6,TOP SECRET CELL,0\n");
  std::string garbage =
      dir.file("garbage.csv", "TOP SECRET first line\n"
                              "\x01\x02\xff,,,\n\"unclosed\n");
  // "limited": the shop's file with only a, b and the label allowed.
  std::string node_file =
      dir.file("node.toml", "[datasets.limited]\npath = \"" + shop +
                                "\"\ncolumns = [\"a\", \"b\", \"label\"]\n");
  process node{node_args()};
  actors::net_config cfg{1, {}};
  caf::actor_system sys{cfg};
  actors::node_actor handle;

  std::vector<std::string> node_args() const {
    auto args = node_serving({"shop=" + shop, "garbage=" + garbage}, "", false);
    args.insert(args.end(), {"--config", node_file});
    return args;
  }

  void connect() {
    auto port = node.port();
    BOOST_REQUIRE_MESSAGE(port > 0, "node output: " << node.output());
    auto h = sys.middleman().remote_actor<actors::node_actor>(
        "127.0.0.1", static_cast<std::uint16_t>(port));
    if (!h)
      BOOST_FAIL("connecting to the node: " << sys.render(h.error()));
    handle = *h;
  }

  /// A spawn request from `self`: the party, or the node's error in words.
  std::pair<caf::actor, std::string>
  spawn(caf::scoped_actor& self, const std::string& name,
        const std::vector<std::string>& datasets) {
    std::pair<caf::actor, std::string> out;
    self->request(handle, 10s, veil::messages::spawn_atom::value, name,
                  std::string("plain"), veil::messages::handshake(), datasets)
        .receive([&](caf::actor& a) { out.first = a; },
                 [&](caf::error& e) { out.second = actors::describe(e); });
    return out;
  }

  /// A load request from `self` to `party`: "" or the error in words.
  std::string load(caf::scoped_actor& self, const caf::actor& party,
                   sess::data_spec spec) {
    std::string out = "no answer";
    self->request(party, 10s, veil::messages::load_atom::value,
                  sess::load_request{false, false, std::move(spec), false})
        .receive([&](sess::data_summary&) { out.clear(); },
                 [&](caf::error& e) { out = actors::describe(e); });
    return out;
  }
};

/// Whether the peer closes fd within `limit` (reading and dropping what
/// it sends first).
bool closed_within(int fd, std::chrono::milliseconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  char buf[4096];
  while (std::chrono::steady_clock::now() < end) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) > 0) {
      auto n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0)
        return true;
    }
  }
  return false;
}

/// A process's resident memory in KiB.
long rss_kib(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string key;
  long value = -1;
  while (in >> key)
    if (key == "VmRSS:" && in >> value)
      return value;
  return value;
}

} // namespace

BOOST_AUTO_TEST_SUITE(hostile)

BOOST_AUTO_TEST_CASE(a_node_serves_only_its_datasets_to_its_coordinator) {
  hostile_node h;
  h.connect();
  caf::scoped_actor coordinator{h.sys};

  // A path, a name the node does not serve, a name that is a path.
  for (auto [datasets, expected] :
       {std::pair{std::vector<std::string>{"/etc/passwd"}, "not by a path"},
        {std::vector<std::string>{h.shop}, "not by a path"},
        {std::vector<std::string>{"shop", "ssn"},
         "the node serves no dataset of that name (it serves: garbage, "
         "limited, shop)"}}) {
    auto [party, error] = h.spawn(coordinator, "b", datasets);
    BOOST_TEST(!party);
    BOOST_TEST(contains(error, expected), error);
    BOOST_TEST(!contains(error, "root:"), error);
  }
  // A party name that could reach a path.
  auto [p0, e0] = h.spawn(coordinator, "../b", {"shop"});
  BOOST_TEST(!p0);
  BOOST_TEST(contains(e0, "a party name is made of letters"), e0);

  // A party for the shop's data: a stranger cannot use it before the
  // coordinator does (nor after: the roster binds it to its coordinator).
  auto [party, error] = h.spawn(coordinator, "b", {"shop"});
  BOOST_REQUIRE_MESSAGE(party, error);
  caf::scoped_actor stranger{h.sys};
  auto e1 = h.load(stranger, party, {"shop", "id", {}, ""});
  BOOST_TEST(contains(e1, "not this session's coordinator"), e1);
  // Another of the node's datasets than its spawn request named.
  auto e2 = h.load(coordinator, party, {"garbage", "", {}, ""});
  BOOST_TEST(contains(e2, "not a dataset its session named"), e2);
  // "Test rows = training rows" opens nothing, whatever path it names: a
  // pipe nobody writes to would hang the party if it did.
  auto pipe = h.dir / "pipe";
  BOOST_REQUIRE(::mkfifo(pipe.c_str(), 0600) == 0);
  std::string copied = "no answer";
  coordinator
      ->request(party, 10s, veil::messages::load_atom::value,
                sess::load_request{true, true, {pipe, "", {}, "x"}, true})
      .receive([&](sess::data_summary&) { copied.clear(); },
               [&](caf::error& e) { copied = actors::describe(e); });
  BOOST_TEST(contains(copied, "no training data is loaded"), copied);
  // What it was started for loads.
  auto e3 = h.load(coordinator, party, {"shop", "id", {"a", "b"}, "label"});
  BOOST_TEST(e3.empty(), e3);
  caf::anon_send_exit(party, caf::exit_reason::user_shutdown);

  // Columns the node does not allow.
  auto [limited, e4] = h.spawn(coordinator, "c", {"limited"});
  BOOST_REQUIRE_MESSAGE(limited, e4);
  for (auto spec : {sess::data_spec{"limited", "", {"a", "secret"}, ""},
                    sess::data_spec{"limited", "id", {"a"}, ""}}) {
    auto e = h.load(coordinator, limited, spec);
    BOOST_TEST(contains(e, "is not one its node allows"), e);
  }
  // No feature list: every allowed column but the label, never "secret".
  std::vector<std::string> names;
  coordinator
      ->request(
          limited, 10s, veil::messages::load_atom::value,
          sess::load_request{false, false, {"limited", "", {}, "label"}, false})
      .receive([&](sess::data_summary& s) { names = s.feature_names; },
               [&](caf::error& e) { BOOST_FAIL(actors::describe(e)); });
  BOOST_TEST((names == std::vector<std::string>{"a", "b"}));
  caf::anon_send_exit(limited, caf::exit_reason::user_shutdown);

  // A file that is no table: the error names the dataset, not the path,
  // and quotes nothing of it; the node's own log has the path.
  auto [g, e5] = h.spawn(coordinator, "d", {"garbage"});
  BOOST_REQUIRE_MESSAGE(g, e5);
  auto e6 = h.load(coordinator, g, {"garbage", "", {}, "label"});
  BOOST_TEST(contains(e6, "dataset \"garbage\""), e6);
  BOOST_TEST(!contains(e6, h.dir / ""), e6);
  BOOST_TEST(!contains(e6, "TOP SECRET"), e6);
  BOOST_TEST(!e6.empty());
  caf::anon_send_exit(g, caf::exit_reason::user_shutdown);
  BOOST_TEST(h.node.wait_for(std::regex("could not load data \"garbage\""), 10s)
                 .has_value(),
             h.node.output());
  BOOST_TEST(contains(h.node.output(), "refused a party for actor"),
             h.node.output());

  // Still up, and an honest session trains on it.
  BOOST_TEST(h.node.running());
  auto session = h.dir.file(
      "s.toml", "[[party]]\nname = \"a\"\ndata = \"" + h.shop +
                    "\"\nid = \"id\"\nlabel = \"label\"\nfeatures = [\"a\"]\n"
                    "[[party]]\nname = \"b\"\ndata = \"shop\"\nid = \"id\"\n"
                    "features = [\"b\"]\nlocation = \"127.0.0.1:" +
                    std::to_string(h.node.port()) +
                    "\"\n[learner]\ntrees = 2\nmax_depth = 2\n");
  auto [rc, out] = run_veil({"train", "--config", session}, 60s);
  BOOST_TEST(rc == 0, out);
  BOOST_TEST(contains(out, "1 on other nodes"), out);
  // A node without --store keeps no model parts, and says so.
  auto [rc2, out2] = run_veil(
      {"train", "--config", session, "--model-out", h.dir / "m.json"}, 60s);
  BOOST_TEST(rc2 == 2, out2);
  BOOST_TEST(contains(out2, "its node keeps no model parts (start the node "
                            "with --store FOLDER)"),
             out2);
  BOOST_TEST(!std::filesystem::exists(h.dir / "m.json"));
}

BOOST_AUTO_TEST_CASE(a_node_without_datasets_or_with_bad_ones_does_not_start) {
  temp_dir dir;
  auto file = dir.file("d.csv", "a,label\n1,0\n");
  for (auto [args, expected] :
       {std::pair{std::vector<std::string>{}, "the node serves no data"},
        {std::vector<std::string>{"--data", "d"}, "expected NAME=PATH"},
        {std::vector<std::string>{"--data", "a/b=" + file},
         "may only hold letters"},
        {std::vector<std::string>{"--data", "d=" + file, "--data", "d=" + file},
         "is given twice"},
        {std::vector<std::string>{"--data", "d=" + dir / "missing.csv"},
         "dataset \"d\": cannot read"},
        {std::vector<std::string>{"--data", "d=" + file, "--store", file},
         "not a folder"},
        {std::vector<std::string>{"--data", "d=" + file, "--allow", "CN=x"},
         "--allow names coordinator certificates: give --tls-cert"},
        {std::vector<std::string>{"--data", "d=" + file, "--tls-cert", file,
                                  "--tls-key", file, "--tls-ca", file,
                                  "--allow", "sha256:12ab"},
         "the 64 hexadecimal digits"},
        {std::vector<std::string>{"--data", "d=" + file, "--max-message-mb",
                                  "0"},
         "--max-message-mb 0: expected 1 to 4095"}}) {
    std::vector<std::string> cmd = {"node", "--listen", "127.0.0.1:0"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    auto [rc, out] = run_veil(cmd, 20s);
    BOOST_TEST(rc == 2, out);
    BOOST_TEST(contains(out, expected), out);
  }
}

// What anyone who reaches a node's port can send before any handshake: a
// frame declaring 256 MiB, bytes that are not BASP, a thousand connections
// that send nothing. The node closes each (before allocating anything),
// bounds its connections, logs why, keeps its memory, and serves the next
// honest session.
BOOST_AUTO_TEST_CASE(a_node_bounds_frames_connections_and_handshakes) {
  temp_dir dir;
  auto shop = dir.file("shop.csv", "id,a,b,y\n1,1,2,0\n2,3,4,1\n3,5,6,0\n");
  auto args = node_serving({"shop=" + shop}, "", false);
  args.insert(args.end(),
              {"--handshake-seconds", "1", "--max-connections", "16"});
  process node(args);
  auto port = node.port();
  BOOST_REQUIRE_MESSAGE(port > 0, node.output());
  auto rss_before = rss_kib(node.pid());

  // A handshake frame declaring 256 MiB.
  int big = dial(port);
  auto h =
      basp_header(caf::io::basp::message_type::client_handshake, 256u << 20);
  BOOST_REQUIRE(::send(big, h.data(), h.size(), MSG_NOSIGNAL) ==
                static_cast<ssize_t>(h.size()));
  BOOST_TEST(closed_within(big, 5s));
  ::close(big);
  BOOST_TEST(node.wait_for(std::regex("a frame of 268435456 bytes before the "
                                      "handshake \\(at most 65536\\)"),
                           5s)
                 .has_value(),
             node.output());

  // Garbage.
  int junk = dial(port);
  std::string text = "GET / HTTP/1.1\r\nHost: node\r\n\r\nand some more bytes";
  ::send(junk, text.data(), text.size(), MSG_NOSIGNAL);
  BOOST_TEST(closed_within(junk, 5s));
  ::close(junk);
  BOOST_TEST(node.wait_for(std::regex("bytes that are not a BASP frame"), 5s)
                 .has_value(),
             node.output());

  // A thousand connections that send nothing: at most 16 are kept, each
  // for the handshake time.
  rlimit lim{};
  ::getrlimit(RLIMIT_NOFILE, &lim);
  lim.rlim_cur =
      std::max<rlim_t>(lim.rlim_cur, std::min<rlim_t>(lim.rlim_max, 4096));
  ::setrlimit(RLIMIT_NOFILE, &lim);
  // In bursts of 100: more at once overflow the kernel's accept queue
  // (128), whose connections then wait for SYN-ACK retries, not the node.
  std::vector<int> idle;
  for (int i = 0; i < 1000; ++i) {
    idle.push_back(dial(port, true));
    if (i % 100 == 99)
      std::this_thread::sleep_for(100ms);
  }
  // Each is closed by the node: refused at once over the limit, or after
  // the handshake time (those the kernel's backlog held connect later).
  int closed = 0;
  std::vector<bool> done(idle.size(), false);
  auto until = std::chrono::steady_clock::now() + 30s;
  while (closed < 1000 && std::chrono::steady_clock::now() < until) {
    for (std::size_t i = 0; i < idle.size(); ++i) {
      if (done[i])
        continue;
      char buf[4096]; // a relayed one gets the middleman's handshake first
      auto n = ::recv(idle[i], buf, sizeof buf, MSG_DONTWAIT);
      if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
                     errno != ENOTCONN)) {
        done[i] = true;
        ++closed;
      }
    }
    node.output(); // keeps reading its log, as a terminal would
    std::this_thread::sleep_for(100ms);
  }
  BOOST_TEST_MESSAGE(closed << " of 1000 idle connections closed by the node");
  BOOST_TEST(closed == 1000);
  if (closed < 1000)
    for (std::size_t i = 0; i < idle.size(); ++i)
      if (!done[i]) {
        char b;
        auto n = ::recv(idle[i], &b, 1, MSG_DONTWAIT);
        BOOST_TEST_MESSAGE("still open: "
                           << i << " recv " << n << " errno " << errno
                           << "; node: "
                           << node.output().substr(
                                  node.output().size() -
                                  std::min<std::size_t>(node.output().size(),
                                                        600)));
        break;
      }
  for (int fd : idle)
    ::close(fd);
  BOOST_TEST(node.wait_for(std::regex("[0-9]+ more connections refused over "
                                      "the limits \\(16 open"),
                           5s)
                 .has_value(),
             node.output());
  BOOST_TEST(
      node.wait_for(std::regex("no BASP handshake in time"), 5s).has_value(),
      node.output());
  auto rss_after = rss_kib(node.pid());
  BOOST_TEST_MESSAGE("node resident memory: " << rss_before << " KiB before, "
                                              << rss_after << " KiB after");
  BOOST_TEST(rss_after < rss_before + 64 * 1024);

  // Still up; an honest session trains on it.
  BOOST_TEST(node.running());
  auto session = dir.file(
      "s.toml", "[[party]]\nname = \"a\"\ndata = \"" + shop +
                    "\"\nid = \"id\"\nlabel = \"y\"\nfeatures = [\"a\"]\n"
                    "[[party]]\nname = \"b\"\ndata = \"shop\"\nid = \"id\"\n"
                    "features = [\"b\"]\nlocation = \"127.0.0.1:" +
                    std::to_string(port) +
                    "\"\n[learner]\ntrees = 2\nmax_depth = 2\n");
  auto [rc, out] = run_veil({"train", "--config", session}, 60s);
  BOOST_TEST(rc == 0, out);
}

BOOST_AUTO_TEST_SUITE_END()
