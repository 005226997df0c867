// Sessions that go wrong end, on every party, with an error that names the
// party and the step: a party killed mid-training, a party that stops
// answering, a malformed or foreign protocol message. The waits here are
// bounded by the session's timeout (a fraction of a second).
#include <boost/test/unit_test.hpp>

#include <chrono>

#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/skip.hpp>

#include "actors/errors.hpp"
#include "learners/data/synthetic.hpp"
#include "messages/plain.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

using namespace veil;
using namespace std::chrono_literals;
using protocols::session::errc;
using test::actor_fixture;
using test::column_split;
namespace wire = veil::protocols::plain;
namespace sess = veil::protocols::session;

namespace {

using veil::test::contains;

using clock_type = std::chrono::steady_clock;

/// A table split over three parties p0 (label), p1, p2.
struct three_parties {
  test::temp_dir dir;
  learners::dataset data;
  actors::session_config cfg;

  explicit three_parties(std::size_t rows = 3000, int trees = 400) {
    learners::classification_spec s;
    s.rows = rows;
    s.features = 9;
    s.informative = 5;
    s.redundant = 2;
    s.seed = 21;
    data = learners::make_classification(s);
    auto file = dir / "d.csv";
    learners::write_csv(data, file);
    cfg = column_split(file, "", data.feature_names(), {0, 3, 6, 9}, "label");
    cfg.params.rounds = trees;
    cfg.params.tree.max_depth = 4;
    cfg.params.threads = 1;
    cfg.timeout = 5s;
  }
};

enum class misbehaviour {
  malformed_setup_done, ///< answers setup with an impossible bin count
  silent_after_roster,  ///< never answers a protocol message
};

/// A stand-in for a passive party (untyped, so that it can misbehave): it
/// answers the session steps like a party with `rows` rows and one feature,
/// then misbehaves as told.
caf::behavior misbehaving_passive(caf::event_based_actor* self,
                                  misbehaviour mode, std::uint64_t rows) {
  return {
      [=](veil::messages::load_atom, sess::load_request&) {
        return sess::data_summary{rows, {"x"}, false, {}};
      },
      [=](veil::messages::align_atom, sess::align_request& r) {
        return static_cast<std::uint64_t>(r.rows.size());
      },
      [=](veil::messages::peers_atom, sess::roster&, std::vector<caf::actor>&) {
        return caf::ok_atom::value;
      },
      [=](wire::setup&) {
        if (mode == misbehaviour::malformed_setup_done)
          self->send(caf::actor_cast<caf::actor>(self->current_sender()),
                     wire::setup_done{{70000}});
      },
  };
}

/// Never answers anything (messages stay in its mailbox).
caf::behavior silent_party(caf::event_based_actor* self) {
  self->set_default_handler(caf::skip);
  return {[](std::int32_t) {}};
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(failure, actor_fixture)

BOOST_AUTO_TEST_CASE(a_party_killed_mid_training_ends_the_session) {
  three_parties t;
  auto parties = spawn_parties(t.cfg);
  bool killed = false;
  clock_type::time_point kill_time;
  auto out = actors::run_session(
      sys, parties, t.cfg, [&](const sess::progress_report& r) {
        if (!killed && r.phase == "train" && r.done >= 2) {
          killed = true;
          kill_time = clock_type::now();
          caf::anon_send_exit(parties[2], caf::exit_reason::kill);
        }
      });
  BOOST_REQUIRE(killed);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((clock_type::now() - kill_time < t.cfg.timeout));
  BOOST_TEST((out.code == errc::party_down), out.error);
  BOOST_TEST(contains(out.error, "p2 ended while p0 was at step"), out.error);
  BOOST_TEST(contains(out.error, "kill"), out.error);
}

// A stranger's protocol message is dropped (and logged), never obeyed: the
// session goes on to the same model.
BOOST_AUTO_TEST_CASE(a_message_from_an_unknown_sender_is_dropped) {
  three_parties t;
  auto parties = spawn_parties(t.cfg);
  bool injected = false;
  auto out = actors::run_session(
      sys, parties, t.cfg, [&](const sess::progress_report& r) {
        if (!injected && r.phase == "train" && r.done >= 1) {
          injected = true;
          caf::anon_send(parties[1], wire::histograms{});
        }
      });
  BOOST_REQUIRE(injected);
  BOOST_REQUIRE_MESSAGE(out.ok(), out.error);
  auto clean = actors::run_session(sys, spawn_parties(t.cfg), t.cfg);
  BOOST_REQUIRE(clean.ok());
  BOOST_TEST(out.result->margins == clean.result->margins,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_malformed_message_is_a_protocol_error) {
  three_parties t(500, 5);
  t.cfg.parties[2].name = "impostor";
  auto parties = spawn_parties(t.cfg);
  auto impostor =
      sys.spawn(misbehaving_passive, misbehaviour::malformed_setup_done,
                std::uint64_t{500});
  parties[2] = impostor;
  auto out = actors::run_session(sys, parties, t.cfg);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((out.code == errc::protocol_error), out.error);
  BOOST_TEST(contains(out.error, "p0 refused a setup_done from impostor"),
             out.error);
  BOOST_TEST(contains(out.error, "bin count out of range"), out.error);
}

BOOST_AUTO_TEST_CASE(a_party_that_stops_answering_times_out) {
  three_parties t(500, 5);
  t.cfg.parties[1].name = "mute";
  t.cfg.timeout = 300ms;
  auto parties = spawn_parties(t.cfg);
  auto impostor =
      sys.spawn(misbehaving_passive, misbehaviour::silent_after_roster,
                std::uint64_t{500});
  parties[1] = impostor;
  auto start = clock_type::now();
  auto out = actors::run_session(sys, parties, t.cfg);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((clock_type::now() - start < 10 * t.cfg.timeout));
  BOOST_TEST((out.code == errc::timeout), out.error);
  BOOST_TEST(contains(out.error, "mute did not answer within 0.3 s at step "
                                 "setup"),
             out.error);
}

BOOST_AUTO_TEST_CASE(a_party_that_never_answers_times_out_at_load) {
  three_parties t(500, 5);
  t.cfg.parties[2].name = "silent";
  t.cfg.timeout = 300ms;
  auto parties = spawn_parties(t.cfg);
  auto silent = sys.spawn(silent_party);
  parties[2] = silent;
  auto start = clock_type::now();
  auto out = actors::run_session(sys, parties, t.cfg);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((clock_type::now() - start < 10 * t.cfg.timeout));
  BOOST_TEST((out.code == errc::timeout), out.error);
  BOOST_TEST(contains(out.error, "silent did not answer within 0.3 s at "
                                 "step load training data"),
             out.error);
}

BOOST_AUTO_TEST_CASE(a_train_request_to_a_passive_party_is_refused) {
  // Only the active party trains: a passive party asked to ends, and says
  // why to whoever watches it.
  three_parties t(300, 2);
  auto parties = spawn_parties(t.cfg);
  caf::scoped_actor self{sys};
  self->monitor(parties[1]);
  self->send(parties[1], veil::messages::train_atom::value);
  std::string error;
  self->receive([&](caf::down_msg& dm) { error = actors::describe(dm.reason); },
                caf::after(5s) >> [&] { error = "no answer"; });
  BOOST_TEST(contains(error, "p1 is not the active party"), error);
  for (auto& p : parties)
    self->send_exit(p, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_SUITE_END()
