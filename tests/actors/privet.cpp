// Privet as actors (actors/privet_party.cpp): a seeded session of three
// computing parties and the dealer trains, message by message, the model
// the in-process MPC runtime trains from the same seeds (the same feature
// per level, the same scores bit for bit), predicts as often as asked
// through the kept session with the scores at the label holder only, and
// counts the dealer's traffic apart. A silent dealer or a computing party
// killed mid-training ends every party with an error naming it.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <future>
#include <memory>

#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/skip.hpp>

#include "actors/errors.hpp"
#include "actors/privet_party.hpp"
#include "learners/data/synthetic.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "protocols/mpc/local_network.hpp"
#include "protocols/privet/deal.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/support/text.hpp"

using namespace veil;
using namespace std::chrono_literals;
using protocols::session::errc;
using test::actor_fixture;
namespace mpc = veil::protocols::mpc;
namespace pv = veil::protocols::privet;
namespace sess = veil::protocols::session;

namespace {

using veil::test::contains;

learners::dataset synthetic(std::size_t rows, std::uint64_t seed) {
  learners::classification_spec s;
  s.rows = rows;
  s.features = 6;
  s.informative = 3;
  s.redundant = 1;
  s.seed = seed;
  return learners::make_classification(s);
}

pv::params small_params() {
  pv::params p;
  p.tables = 2;
  p.depth = 2;
  p.buckets = 8;
  return p;
}

constexpr int computing = 3;

/// The runtime in one process on the same deal and seed: each table's
/// features and the test rows' scores opened.
struct runtime_answer {
  std::vector<std::vector<std::int32_t>> tables;
  std::vector<double> margins;
};

runtime_answer in_process(const pv::dealt_table& train,
                          const pv::dealt_table& eval, const pv::params& p,
                          std::uint64_t seed) {
  runtime_answer out;
  mpc::local_network net(computing, seed);
  auto opened =
      net.run<mpc::words>([&](mpc::party& self) -> mpc::task<mpc::words> {
        auto me = static_cast<std::size_t>(self.id());
        auto model =
            co_await pv::train(self, p, train.map, train.parties[me].features);
        if (me == 0)
          for (const auto& t : model.tables)
            out.tables.push_back(t.features);
        co_return co_await pv::predict(self, model, eval.map,
                                       eval.parties[me].eval, p.depth);
      });
  out.margins = mpc::decode_all(opened[0]);
  return out;
}

actors::privet_config config_of(const learners::dataset& train,
                                const learners::dataset& test,
                                std::uint64_t seed) {
  auto dealt = pv::deal_table(train, test, computing);
  actors::privet_config c;
  c.params = small_params();
  c.map = dealt.map;
  c.parties = std::move(dealt.parties);
  c.test_seed = seed;
  c.timeout = 20s;
  return c;
}

/// A stand-in for the dealer that answers the session steps and never
/// sends a seed.
caf::behavior silent_dealer(caf::event_based_actor* self) {
  self->set_default_handler(caf::skip);
  return {
      [](veil::messages::peers_atom, sess::roster&, std::vector<caf::actor>&) {
        return caf::ok_atom::value;
      },
      [](veil::messages::train_atom) {},
      [](veil::messages::stats_atom) { return sess::byte_stats{}; },
  };
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(privet, actor_fixture)

BOOST_AUTO_TEST_CASE(actors_train_and_predict_what_the_runtime_computes) {
  const std::uint64_t seed = 29;
  auto train = synthetic(160, 3), test = synthetic(40, 4);
  auto cfg = config_of(train, test, seed);
  auto expected =
      in_process(pv::deal_table(train, test, computing),
                 pv::deal_table(train, test, computing), small_params(), seed);

  actors::privet_session s;
  BOOST_REQUIRE(s.open(cfg));
  BOOST_REQUIRE(s.train());
  BOOST_TEST((s.result().tables == expected.tables));
  BOOST_TEST(s.result().rounds > 0u);
  // Through the kept session, twice: the same scores (SecInfer is
  // deterministic given the model; its fresh randomness only masks).
  for (int k = 0; k < 2; ++k) {
    if (!s.predict())
      BOOST_FAIL(s.close().error);
    BOOST_TEST(s.result().margins == expected.margins,
               boost::test_tools::per_element());
  }
  BOOST_REQUIRE(s.collect_stats());
  auto out = s.close();
  BOOST_REQUIRE(out.ok());
  const auto& parties = out.result->parties;
  BOOST_REQUIRE(parties.size() == computing + 1u);
  BOOST_TEST(parties.back().name == pv::dealer_name);
  // The dealer sends seeds and corrections, and receives only asks; the
  // computing parties' rounds are theirs.
  const auto& dealer = parties.back().bytes;
  std::uint64_t seeds = 0, answers = 0, rounds_in = 0;
  for (std::size_t k = 0; k < dealer.types.size(); ++k) {
    if (dealer.types[k] == "dealer_seed")
      seeds = dealer.sent[k];
    if (dealer.types[k] == "correlation_answer")
      answers = dealer.sent[k];
    if (dealer.types[k] == "round_words")
      rounds_in += dealer.sent[k] + dealer.received[k];
  }
  BOOST_TEST(seeds > 0u);
  BOOST_TEST(answers > 0u);
  BOOST_TEST(rounds_in == 0u);
}

BOOST_AUTO_TEST_CASE(a_silent_dealer_times_out_and_is_named) {
  auto train = synthetic(80, 5);
  auto dealt = pv::deal_table(train, train, computing);
  actors::privet_run run;
  run.params = small_params();
  run.map = dealt.map;
  run.rows = train.rows();
  run.timeout = 400ms;
  // Before the online phase the parties wait within the idle bound (the
  // dealer's dry run may be long): a silent dealer is found there.
  run.link.idle_seconds = 1.5;
  run.predict = false;
  std::vector<caf::actor> parties;
  for (int c = 0; c < computing; ++c) {
    run.names.push_back(dealt.parties[static_cast<std::size_t>(c)].name);
    parties.push_back(actors::spawn_privet_party(
        sys, dealt.parties[static_cast<std::size_t>(c)]));
  }
  run.names.push_back("quiet dealer");
  parties.push_back(sys.spawn(silent_dealer));
  auto start = std::chrono::steady_clock::now();
  auto out = actors::run_privet_actors(sys, parties, run);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((std::chrono::steady_clock::now() - start < 10s));
  BOOST_TEST((out.code == errc::timeout), out.error);
  BOOST_TEST(contains(out.error, "waited for a message from its peers"),
             out.error);
  BOOST_TEST(contains(out.error, "quiet dealer"), out.error);
}

BOOST_AUTO_TEST_CASE(a_party_killed_mid_training_ends_every_party) {
  auto train = synthetic(400, 6);
  auto dealt = pv::deal_table(train, train, computing);
  actors::privet_run run;
  run.params = small_params();
  run.params.tables = 50; // long enough to be killed while training
  run.map = dealt.map;
  run.rows = train.rows();
  run.timeout = 5s;
  run.predict = false;
  std::vector<caf::actor> parties;
  for (auto& p : dealt.parties) {
    run.names.push_back(p.name);
    parties.push_back(actors::spawn_privet_party(sys, std::move(p)));
  }
  caf::scoped_actor watcher{sys};
  for (const auto& p : parties)
    watcher->monitor(p);
  auto result = std::async(std::launch::async, [&] {
    return actors::run_privet_actors(sys, parties, run);
  });
  BOOST_REQUIRE(result.wait_for(300ms) == std::future_status::timeout);
  auto killed = std::chrono::steady_clock::now();
  caf::anon_send_exit(parties[1], caf::exit_reason::kill);
  BOOST_REQUIRE(result.wait_for(10s) == std::future_status::ready);
  auto out = result.get();
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((std::chrono::steady_clock::now() - killed < run.timeout));
  BOOST_TEST((out.code == errc::party_down), out.error);
  BOOST_TEST(contains(out.error, "party1 ended"), out.error);
  // Every party ends.
  std::size_t down = 0;
  for (std::size_t k = 0; k < parties.size(); ++k)
    watcher->receive([&](caf::down_msg&) { ++down; }, caf::after(10s) >> [] {});
  BOOST_TEST(down == parties.size());
}

BOOST_AUTO_TEST_CASE(a_session_without_a_dealer_is_refused) {
  auto train = synthetic(40, 7);
  auto cfg = config_of(train, train, 3);
  cfg.parties.resize(2); // party0, party1: the dealer would be party1
  auto out = actors::privet_session::run(std::move(cfg));
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST((out.code == errc::bad_input), out.error);
  BOOST_TEST(contains(out.error, "at least 2 computing parties and the dealer"),
             out.error);
}

BOOST_AUTO_TEST_SUITE_END()
