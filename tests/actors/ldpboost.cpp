// LDP boosting as actors (actors/ldpboost_party.cpp): a seeded session of a
// data user and 600 owners boosts, through the Piecewise mechanism, the
// ensemble the roles build without actors from the same seeds (the same
// owners asked, the same noise; sums in another order), predicts its
// evaluation rows, and counts every owner's one message; owners that never
// answer are skipped after half the timeout and counted, and the rounds go
// on; an owner that ends ends the session, naming it; scaling bounds
// other than the data user's are refused.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <future>

#include <caf/event_based_actor.hpp>
#include <caf/send.hpp>
#include <caf/skip.hpp>

#include "actors/errors.hpp"
#include "actors/ldpboost_party.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/protocols/ldpboost/world.hpp"
#include "tests/support/text.hpp"

using namespace veil;
using namespace std::chrono_literals;
using protocols::session::errc;
using test::actor_fixture;
using test::ldpboost::rows_of;
using test::ldpboost::world;
namespace lb = veil::protocols::ldpboost;
namespace sess = veil::protocols::session;

namespace {

using veil::test::contains;

constexpr std::size_t owners = 600, per_owner = 4, user_rows = 400;
constexpr std::uint64_t seed = 5;

lb::params boosted() {
  lb::params p;
  p.base = lb::learner::ncc;
  p.mech = lb::mechanism::piecewise;
  p.epsilon = 7;
  p.rounds = 4;
  p.owners_per_round = 80;
  return p;
}

/// The parties of `w`'s data: the data user with its rows (and the same
/// rows to evaluate), then every owner with its own.
std::vector<actors::ldpboost_party_spec> specs_of(const world& w) {
  std::vector<actors::ldpboost_party_spec> out;
  auto own = rows_of(w.data, owners * per_owner, w.data.rows());
  out.push_back({"user", own, own});
  for (std::size_t h = 0; h < owners; ++h)
    out.push_back({"owner" + std::to_string(h + 1),
                   rows_of(w.data, h * per_owner, (h + 1) * per_owner),
                   {}});
  return out;
}

/// The run of the parties of `specs` (names, the data user's bounds).
actors::ldpboost_run
run_of(const std::vector<actors::ldpboost_party_spec>& specs,
       std::chrono::milliseconds timeout) {
  actors::ldpboost_run run;
  run.params = boosted();
  auto bounds = lb::scaling::of(specs[0].features);
  run.lower = bounds.lower;
  run.upper = bounds.upper;
  run.timeout = timeout;
  run.predict = false;
  for (const auto& s : specs)
    run.names.push_back(s.name);
  return run;
}

/// An owner that answers the session steps and never a share request.
caf::behavior silent_owner(caf::event_based_actor* self) {
  self->set_default_handler(caf::skip);
  return {
      [](veil::messages::peers_atom, sess::roster&, std::vector<caf::actor>&) {
        return caf::ok_atom::value;
      },
      [](veil::messages::stats_atom) { return sess::byte_stats{}; },
  };
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(ldpboost, actor_fixture)

BOOST_AUTO_TEST_CASE(actors_boost_what_the_roles_boost) {
  world direct(owners, per_owner, user_rows, boosted(), seed);
  direct.run();
  actors::ldpboost_config cfg;
  cfg.params = boosted();
  cfg.parties = specs_of(direct);
  cfg.test_seed = seed;
  cfg.timeout = 20s;
  actors::ldpboost_session s;
  BOOST_REQUIRE(s.open(std::move(cfg)));
  BOOST_REQUIRE(s.train());
  const auto& r = s.result();
  BOOST_REQUIRE(r.ensemble.size() == direct.user->ensemble().size());
  BOOST_TEST(r.alpha.size() == 4u);
  for (std::size_t m = 0; m < r.ensemble.size(); ++m) {
    BOOST_TEST(std::abs(r.alpha[m] - direct.user->alpha()[m]) < 1e-9);
    const auto& a = std::get<learners::nearest_centroid>(r.ensemble[m]);
    const auto& b =
        std::get<learners::nearest_centroid>(direct.user->ensemble()[m]);
    for (std::size_t k = 0; k < 2; ++k)
      for (std::size_t j = 0; j < a.centroids[k].size(); ++j)
        BOOST_TEST(std::abs(a.centroids[k][j] - b.centroids[k][j]) < 1e-9);
  }
  BOOST_TEST(r.burned == direct.user->log().burned);
  BOOST_TEST(r.staged_test_errors.size() == r.ensemble.size());
  BOOST_REQUIRE(s.predict());
  BOOST_REQUIRE(s.result().margins.size() == user_rows);
  BOOST_REQUIRE(s.collect_stats());
  auto out = s.close();
  BOOST_REQUIRE(out.ok());
  // The staged error of the whole ensemble is the prediction's.
  double wrong = 0;
  for (std::size_t i = 0; i < user_rows; ++i)
    wrong += out.result->margins[i] != out.result->labels[i];
  BOOST_TEST(std::abs(wrong / user_rows - r.staged_test_errors.back()) < 1e-12);
  // Every asked owner sent one reply; the others nothing.
  std::size_t replied = 0;
  for (std::size_t q = 1; q < out.result->parties.size(); ++q) {
    const auto& b = out.result->parties[q].bytes;
    for (std::size_t k = 0; k < b.types.size(); ++k)
      if (b.types[k] == "share_reply" && b.sent[k] > 0)
        ++replied;
  }
  BOOST_TEST(replied == r.burned);
}

BOOST_AUTO_TEST_CASE(silent_owners_are_skipped_and_counted) {
  world w(owners, per_owner, user_rows, boosted(), seed);
  auto specs = specs_of(w);
  auto run = run_of(specs, 600ms); // owners are skipped after 300 ms
  run.pick_seed = seed;
  std::vector<caf::actor> parties;
  for (std::size_t q = 0; q < specs.size(); ++q) {
    // Every tenth owner never answers.
    parties.push_back(q > 0 && q % 10 == 0 ? sys.spawn(silent_owner)
                                           : actors::spawn_ldpboost_party(
                                                 sys, std::move(specs[q]), seed,
                                                 static_cast<std::int32_t>(q)));
  }
  auto out = actors::run_ldpboost_actors(sys, parties, run);
  BOOST_REQUIRE_MESSAGE(out.ok(), out.error);
  const auto& r = *out.result;
  BOOST_TEST(r.ensemble.size() == 4u);
  BOOST_TEST(r.silent > 0u);
  // About a tenth of the owners asked: within a generous band.
  BOOST_TEST(r.silent * 20 > r.burned);
  BOOST_TEST(r.silent * 5 < r.burned);
}

BOOST_AUTO_TEST_CASE(an_owner_that_ends_ends_the_session) {
  world w(owners, per_owner, user_rows, boosted(), seed);
  auto specs = specs_of(w);
  auto run = run_of(specs, 5s);
  std::vector<caf::actor> parties;
  for (std::size_t q = 0; q < specs.size(); ++q) {
    parties.push_back(actors::spawn_ldpboost_party(
        sys, std::move(specs[q]), {}, static_cast<std::int32_t>(q)));
  }
  caf::anon_send_exit(parties[7], caf::exit_reason::kill);
  auto out = actors::run_ldpboost_actors(sys, parties, run);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST((out.code == errc::party_down), out.error);
  BOOST_TEST(contains(out.error, "owner7"), out.error);
}

BOOST_AUTO_TEST_CASE(bounds_other_than_the_data_users_are_refused) {
  world w(owners, per_owner, user_rows, boosted(), seed);
  auto specs = specs_of(w);
  auto run = run_of(specs, 5s);
  run.lower[0] -= 1; // the owners would scale by another range
  std::vector<caf::actor> parties;
  for (std::size_t q = 0; q < specs.size(); ++q)
    parties.push_back(actors::spawn_ldpboost_party(
        sys, std::move(specs[q]), {}, static_cast<std::int32_t>(q)));
  auto out = actors::run_ldpboost_actors(sys, parties, run);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST((out.code == errc::bad_input), out.error);
  BOOST_TEST(contains(out.error, "scaling bounds are not the data user's"),
             out.error);
}

BOOST_AUTO_TEST_SUITE_END()
