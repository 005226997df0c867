// The liveness rules run on the actor's clock, so CAF's deterministic test
// coordinator drives them without waiting: a plain passive party with
// nothing to do stays within its idle bound (net.idle_timeout) and leaves,
// naming it, once the bound has passed on the test clock. Its role host
// refuses rosters it cannot join, naming the party.
#include <boost/test/unit_test.hpp>
#include <functional>

#include <chrono>
#include <fstream>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scheduler/test_coordinator.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/errors.hpp"
#include "actors/feverless_client.hpp"
#include "actors/hosting.hpp"
#include "actors/party.hpp"
#include "messages/feverless.hpp"
#include "messages/plain.hpp"
#include "messages/register.hpp"
#include "messages/type_ids.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

using namespace veil;
using namespace std::chrono_literals;
namespace sess = veil::protocols::session;

namespace {

struct deterministic_config : caf::actor_system_config {
  deterministic_config() {
    veil::messages::register_types(*this);
    set("scheduler.policy", caf::atom("testing"));
    set("logger.file-verbosity", caf::atom("quiet"));
  }
};

using veil::test::contains;

/// A party "p1" under the test coordinator (a plain one, or what `spawn`
/// spawns), its four rows loaded, a coordinator and a stand-in for the
/// active party "a".
struct loaded_party {
  test::temp_dir dir;
  deterministic_config cfg;
  caf::actor_system sys{cfg};
  caf::scheduler::test_coordinator& sched =
      dynamic_cast<caf::scheduler::test_coordinator&>(sys.scheduler());
  caf::scoped_actor coordinator{sys};
  caf::scoped_actor active{sys}; // stands in for the active party
  caf::actor party;

  explicit loaded_party(
      std::function<caf::actor(caf::actor_system&, std::string)> spawn =
          actors::spawn_party)
      : party(spawn(sys, "p1")) {
    auto file = dir / "p1.csv";
    {
      std::ofstream out(file);
      out << "x,y\n1,2\n3,4\n5,6\n7,8\n";
    }
    coordinator->monitor(party);
    coordinator->send(
        party, veil::messages::load_atom::value,
        sess::load_request{false, false, {file, "", {}, ""}, false});
    sched.run();
    bool loaded = false;
    coordinator->receive([&](sess::data_summary& s) { loaded = s.rows == 4; },
                         caf::after(0s) >> [] {});
    BOOST_REQUIRE(loaded);
  }

  /// Sends it a roster of "a" and "p1" (a star around "a") with `settings`.
  void send_roster(sess::link_model link, std::vector<std::uint8_t> settings) {
    sess::roster roster{-1, {"a", "p1"}, 1000, link, 0, std::move(settings)};
    std::vector<caf::actor> handles{caf::actor_cast<caf::actor>(active.ptr()),
                                    party};
    coordinator->send(party, veil::messages::peers_atom::value, roster,
                      handles);
    sched.run();
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(idle_clock)

BOOST_AUTO_TEST_CASE(an_idle_party_leaves_after_its_bound_on_the_test_clock) {
  loaded_party p;
  auto& sched = p.sched;
  auto& coordinator = p.coordinator;
  auto& active = p.active;
  auto& party = p.party;
  // The roster: a star around the active party, a 1 s timeout and a 5 s
  // idle bound.
  p.send_roster({0, 0, 5},
                veil::messages::pack(protocols::plain::roster_settings{}));
  bool joined = false;
  coordinator->receive([&](caf::ok_atom) { joined = true; },
                       caf::after(0s) >> [] {});
  BOOST_REQUIRE(joined);

  // The active party's setup: the passive party answers and, having its
  // role, starts watching the time.
  active->send(party, protocols::plain::setup{256, 1, {}, 0, {}});
  sched.run();
  bool answered = false;
  active->receive([&](protocols::plain::setup_done&) { answered = true; },
                  caf::after(0s) >> [] {});
  BOOST_REQUIRE(answered);

  // Nothing more comes. Within the bound it stays; past it, it leaves.
  std::string reason;
  auto down = [&] {
    coordinator->receive(
        [&](caf::down_msg& dm) { reason = actors::describe(dm.reason); },
        caf::after(0s) >> [] {});
    return !reason.empty();
  };
  for (int step = 0; step < 9; ++step) { // 4.5 s of test time
    sched.advance_time(500ms);
    sched.run();
  }
  BOOST_TEST(!down(), reason);
  for (int step = 0; step < 4 && reason.empty(); ++step) {
    sched.advance_time(500ms);
    sched.run();
    down();
  }
  BOOST_TEST(contains(reason, "p1 waited for a message from its peers for 5 s "
                              "(net.idle_timeout) after step setup_done"),
             reason);
  BOOST_TEST(contains(reason, "a (for 5"), reason);
}

// One roster message serves every protocol, its settings packed: a party
// refuses a roster whose settings are not its protocol's, before it joins.
BOOST_AUTO_TEST_CASE(a_roster_with_another_protocols_settings_is_refused) {
  loaded_party p;
  // A plain party's settings are the booster's; these are three bytes.
  p.send_roster({}, {1, 2, 3});
  auto& coordinator = p.coordinator;
  std::string refused;
  coordinator->receive([&](caf::ok_atom) { refused = "joined"; },
                       [&](caf::error& e) { refused = actors::describe(e); },
                       caf::after(0s) >> [] {});
  BOOST_TEST(contains(refused, "p1: malformed roster (its settings are not "
                               "this protocol's)"),
             refused);
}

// What a protocol's join throws (its settings cannot make a role) is the
// party's bad input, named, whatever the protocol: the role host says so.
BOOST_AUTO_TEST_CASE(a_roster_whose_params_do_not_validate_is_bad_input) {
  loaded_party p([](caf::actor_system& sys, std::string name) {
    return actors::feverless_party_kind().spawn(sys, std::move(name), {});
  });
  veil::messages::fvl::roster_settings settings;
  settings.keys.assign(64, 1); // two clients' identity keys
  settings.params.trees = 0;   // out of range
  p.send_roster({}, veil::messages::pack(settings));
  std::string refused;
  bool bad_input = false;
  p.coordinator->receive([&](caf::ok_atom) { refused = "joined"; },
                         [&](caf::error& e) {
                           refused = actors::describe(e);
                           bad_input =
                               actors::code_of(e) == sess::errc::bad_input;
                         },
                         caf::after(0s) >> [] {});
  BOOST_TEST(contains(refused, "p1: feverless parameter trees = 0 is out of "
                               "range"),
             refused);
  BOOST_TEST(bad_input, refused);
}

BOOST_AUTO_TEST_SUITE_END()
