// Nothing in the runtime assumes a shared address space: the same session
// runs with each party in its own actor system (its own CAF node, talking
// BASP over TCP on 127.0.0.1), reached through remote_actor.
// Every message is serialized on the way, so this also checks that each
// type is registered under the same name on every node.
#include <boost/test/unit_test.hpp>

#include <memory>

#include <caf/io/middleman.hpp>

#include "actors/errors.hpp"
#include "actors/feverless_session.hpp"
#include "actors/interfaces.hpp"
#include "actors/remote.hpp"
#include "learners/boost/booster.hpp"
#include "learners/data/synthetic.hpp"
#include "messages/version.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil;

namespace {

struct node_config : caf::actor_system_config {
  node_config() {
    veil::messages::register_types(*this);
    load<caf::io::middleman>();
    set("scheduler.max-threads", 1);
    set("middleman.workers", 0);
  }
};

/// One CAF node per party plus the coordinator's.
struct nodes {
  node_config coordinator_cfg;
  caf::actor_system coordinator{coordinator_cfg};
  std::vector<std::unique_ptr<node_config>> cfgs;
  std::vector<std::unique_ptr<caf::actor_system>> systems;

  /// Spawns party `name` on a node of its own, publishes it and returns
  /// its remote handle as the coordinator's node sees it.
  caf::actor spawn_remote(const std::string& name) {
    cfgs.push_back(std::make_unique<node_config>());
    systems.push_back(std::make_unique<caf::actor_system>(*cfgs.back()));
    auto& sys = *systems.back();
    auto party = actors::spawn_party(sys, name);
    auto port = sys.middleman().publish(party, 0, "127.0.0.1");
    if (!port)
      BOOST_FAIL("publish: " << sys.render(port.error()));
    auto remote = coordinator.middleman().remote_actor("127.0.0.1", *port);
    if (!remote)
      BOOST_FAIL("remote_actor: " << coordinator.render(remote.error()));
    return *remote;
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(remote)

BOOST_AUTO_TEST_CASE(a_session_across_four_nodes_equals_centralized) {
  test::temp_dir dir;
  learners::classification_spec s;
  s.rows = 2000;
  s.features = 9;
  s.informative = 5;
  s.redundant = 2;
  s.seed = 8;
  auto d = learners::make_classification(s);
  auto file = dir / "d.csv";
  learners::write_csv(d, file);
  learners::booster_params p;
  p.rounds = 4;
  p.tree.max_depth = 4;
  p.threads = 1;
  auto central = learners::train(d, nullptr, p).model;

  std::vector<std::size_t> bounds{0, 3, 6, 9};
  auto c = test::column_split(file, "", d.feature_names(), bounds, "label");
  c.params = p;
  c.timeout = std::chrono::seconds(20);
  nodes n;
  std::vector<caf::actor> parties;
  for (const auto& spec : c.parties)
    parties.push_back(n.spawn_remote(spec.name));
  auto out = actors::run_session(n.coordinator, parties, c);
  if (!out.ok())
    BOOST_FAIL(out.error);
  test::require_same_model(*out.result, central, bounds);
  auto expected = central.predict_margin(d);
  BOOST_TEST(out.result->margins == expected, boost::test_tools::per_element());
  test::check_bytes(*out.result);
  BOOST_TEST_MESSAGE("4 nodes: " << out.result->model.trees.size() << " trees, "
                                 << out.result->bytes[1].total_received()
                                 << " bytes to party 1");
}

BOOST_AUTO_TEST_CASE(a_node_refuses_another_builds_coordinator) {
  // The handshake: Veil's version and the wire's fingerprint. A node
  // starts a party only for a coordinator of the same build, and otherwise
  // names both builds.
  auto hs = veil::messages::handshake();
  BOOST_TEST(hs.rfind("veil " VEIL_VERSION ", wire ", 0) == 0u, hs);
  BOOST_TEST(veil::messages::wire_fingerprint().size() == 16u);
  node_config cfg;
  caf::actor_system sys{cfg};
  auto node =
      actors::spawn_node(sys, false, {actors::feverless_party_kind()}, {});
  caf::scoped_actor self{sys};
  std::string refusal;
  self->request(node, std::chrono::seconds(10),
                veil::messages::spawn_atom::value, std::string("shop"),
                std::string("feverless"),
                std::string("veil 0.0.9, wire 0000000000000000"),
                std::vector<std::string>{})
      .receive([&](caf::actor&) { refusal = "started"; },
               [&](caf::error& e) { refusal = actors::describe(e); });
  BOOST_TEST(refusal.find("this node runs " + hs) != std::string::npos,
             refusal);
  BOOST_TEST(refusal.find("the coordinator veil 0.0.9, wire "
                          "0000000000000000") != std::string::npos,
             refusal);
  caf::actor party;
  self->request(node, std::chrono::seconds(10),
                veil::messages::spawn_atom::value, std::string("shop"),
                std::string("feverless"), hs, std::vector<std::string>{})
      .receive([&](caf::actor& a) { party = a; },
               [&](caf::error& e) { BOOST_FAIL(actors::describe(e)); });
  BOOST_TEST(static_cast<bool>(party));
  self->send_exit(party, caf::exit_reason::user_shutdown);
  self->send_exit(node, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_SUITE_END()
