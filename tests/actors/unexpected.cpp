// A message outside an actor's interface (what CAF delivers, as an empty
// message, when a remote message fails to decode) is not dropped: the party
// or coordinator that gets it ends the session with an error naming the
// sender and the step.
#include <boost/test/unit_test.hpp>

#include <optional>

#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "learners/data/synthetic.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

using namespace veil;
using namespace std::chrono_literals;
namespace sess = veil::protocols::session;

namespace {

using veil::test::contains;

struct small_session : test::actor_fixture {
  test::temp_dir dir;
  actors::session_config c;
  small_session() {
    learners::classification_spec s;
    s.rows = 300;
    s.features = 6;
    s.informative = 3;
    s.redundant = 1;
    s.seed = 3;
    auto d = learners::make_classification(s);
    auto file = dir / "d.csv";
    learners::write_csv(d, file);
    c = test::column_split(file, "", d.feature_names(), {0, 2, 4, 6}, "label");
    c.params.rounds = 3;
    c.params.tree.max_depth = 3;
    c.params.threads = 1;
    c.timeout = 5s;
  }
};

} // namespace

BOOST_AUTO_TEST_SUITE(unexpected)

BOOST_FIXTURE_TEST_CASE(a_party_reports_an_unexpected_message, small_session) {
  auto parties = spawn_parties(c);
  {
    caf::scoped_actor self{sys};
    self->send(caf::actor_cast<caf::actor>(parties[1]),
               std::string("not a Veil message"));
  }
  auto out = actors::run_session(sys, parties, c);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST(contains(out.error, "p1 got an unexpected message"));
  BOOST_TEST(contains(out.error, "not a Veil message"));
  BOOST_TEST(contains(out.error, "(not a peer)"));
  BOOST_TEST(contains(out.error, "at step session setup"));
  BOOST_TEST((out.code == sess::errc::protocol_error));
}

// Once a party has its roster, a stranger (anyone who learned its actor id)
// neither drives it nor ends its session: its requests are refused and
// logged, its other messages dropped.
BOOST_FIXTURE_TEST_CASE(a_stranger_is_not_obeyed_mid_session, small_session) {
  auto parties = spawn_parties(c);
  caf::scoped_actor stranger{sys};
  bool sent = false;
  std::optional<caf::error> stats_refused;
  auto out =
      actors::run_session(sys, parties, c, [&](const sess::progress_report& r) {
        if (sent || r.phase != "train")
          return;
        sent = true;
        for (auto& p : parties) {
          auto a = caf::actor_cast<caf::actor>(p);
          stranger->send(a, veil::messages::train_atom::value);
          stranger->send(a, veil::messages::predict_atom::value);
          stranger->send(a, std::string("not a Veil message"));
        }
        stranger
            ->request(caf::actor_cast<caf::actor>(parties[1]), 5s,
                      veil::messages::stats_atom::value)
            .receive([&](sess::byte_stats&) {},
                     [&](caf::error& e) { stats_refused = e; });
      });
  BOOST_REQUIRE(sent);
  BOOST_REQUIRE_MESSAGE(out.ok(), out.error);
  BOOST_REQUIRE(stats_refused.has_value());
  BOOST_TEST(contains(sys.render(*stats_refused), "coordinator"));
}

BOOST_FIXTURE_TEST_CASE(an_empty_message_is_reported_as_undecodable,
                        small_session) {
  auto parties = spawn_parties(c);
  caf::anon_send(caf::actor_cast<caf::actor>(parties[2]), caf::message{});
  auto out = actors::run_session(sys, parties, c);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST(contains(out.error, "p2 got an unexpected message ()"));
  BOOST_TEST(contains(out.error, "could not be decoded"));
}

BOOST_AUTO_TEST_SUITE_END()
