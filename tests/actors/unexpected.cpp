// A message outside an actor's interface (what CAF delivers, as an empty
// message, when a remote message fails to decode) is not dropped: the party
// or coordinator that gets it ends the session with an error naming the
// sender and the step.
#include <boost/test/unit_test.hpp>

#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>

#include "learners/data/synthetic.hpp"
#include "messages/session.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil;
using namespace std::chrono_literals;
namespace sess = veil::protocols::session;

namespace {

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

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
