// A node as an attacker meets it (issue "Nodes that trust no one"): a real
// `veil node` process on 127.0.0.1, driven by a coordinator of this test's
// own making that skips every check `veil train` makes before it sends
// anything. The node serves only the datasets it was started with, by
// name, only their allowed columns, only to the coordinator that asked for
// the party; its errors carry no path and no file content; after every
// refusal it stays up and serves the next honest session.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <string>
#include <vector>

#include <caf/actor_system.hpp>
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
    self->request(handle, 10s, messages::spawn_atom::value, name,
                  std::string("plain"), messages::handshake(), datasets)
        .receive([&](caf::actor& a) { out.first = a; },
                 [&](caf::error& e) { out.second = actors::describe(e); });
    return out;
  }

  /// A load request from `self` to `party`: "" or the error in words.
  std::string load(caf::scoped_actor& self, const caf::actor& party,
                   sess::data_spec spec) {
    std::string out = "no answer";
    self->request(party, 10s, messages::load_atom::value,
                  sess::load_request{false, false, std::move(spec), false})
        .receive([&](sess::data_summary&) { out.clear(); },
                 [&](caf::error& e) { out = actors::describe(e); });
    return out;
  }
};

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
          limited, 10s, messages::load_atom::value,
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
         "not a folder"}}) {
    std::vector<std::string> cmd = {"node", "--listen", "127.0.0.1:0"};
    cmd.insert(cmd.end(), args.begin(), args.end());
    auto [rc, out] = run_veil(cmd, 20s);
    BOOST_TEST(rc == 2, out);
    BOOST_TEST(contains(out, expected), out);
  }
}

BOOST_AUTO_TEST_SUITE_END()
