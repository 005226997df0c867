// OpBoost sessions that go wrong end, on every party, with an error that
// names the party and the step, within the timeout: a Party B killed
// mid-session, a Party B that never speaks, a forged protocol message.
// Also: parties that load their own files (rows aligned on an id column,
// public bounds from the roster) train the model of parties given the
// same data, and the public bounds must name a Party B column.
#include <boost/test/unit_test.hpp>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>

#include <caf/event_based_actor.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/send.hpp>
#include <caf/skip.hpp>

#include "actors/errors.hpp"
#include "actors/hosting.hpp"
#include "actors/opboost_party.hpp"
#include "actors/support.hpp"
#include "learners/data/synthetic.hpp"
#include "messages/opboost.hpp"
#include "messages/session.hpp"
#include "messages/type_ids.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

using namespace veil;
using namespace std::chrono_literals;
using protocols::session::errc;
using test::actor_fixture;
namespace op = veil::protocols::opboost;
namespace opl = veil::messages::opl;
namespace sess = veil::protocols::session;
using clock_type = std::chrono::steady_clock;

namespace {

using veil::test::contains;

learners::dataset synthetic(std::size_t rows) {
  learners::classification_spec s;
  s.rows = rows;
  s.features = 6;
  s.informative = 3;
  s.redundant = 1;
  s.seed = 41;
  return learners::make_classification(s);
}

/// Party q of 3: A holds columns 0-1 and the labels, B1 2-3, B2 4-5.
std::vector<std::size_t> columns_of(std::size_t q) {
  return {2 * q, 2 * q + 1};
}

const char* party_names[] = {"A", "B1", "B2"};

/// The public bounds of the tests: column 2 (B1's first).
std::map<std::string, op::feature_map> some_bounds(const learners::dataset& d) {
  op::feature_map m;
  m.lower = -2.5;
  m.upper = 2.5;
  return {{d.feature_names()[2], m}};
}

op::params small_params(int rounds) {
  op::params p;
  p.mechanism.kind = op::mechanism_kind::identity; // deterministic
  p.booster.rounds = rounds;
  p.booster.tree.max_depth = 3;
  return p;
}

/// Party q given its data: its columns (A: with the labels; a Party B: its
/// maps, public bounds where `bounds` has them, else its data's min and
/// max), and the same rows to predict.
actors::opboost_party_spec
given_spec(const learners::dataset& d, std::size_t q,
           const std::map<std::string, op::feature_map>& bounds = {}) {
  actors::opboost_party_spec s;
  s.name = party_names[q];
  s.features = d.select_columns(columns_of(q));
  if (q > 0) {
    s.features.labels().clear();
    for (std::size_t j = 0; j < s.features.features(); ++j) {
      auto it = bounds.find(s.features.feature_names()[j]);
      s.maps.push_back(it != bounds.end()
                           ? it->second
                           : op::fit_bounds(s.features.column(j)));
    }
  }
  s.eval = s.features;
  s.eval.labels().clear();
  return s;
}

/// A stand-in for a Party B that answers the session steps and then, when
/// told to train, does `on_train` (nothing: it stays silent).
template <class OnTrain>
caf::behavior impostor(caf::event_based_actor* self, OnTrain on_train) {
  auto peers = std::make_shared<std::vector<caf::actor>>();
  self->set_default_handler(caf::skip); // protocol messages: never answered
  return {
      [=](veil::messages::peers_atom, sess::roster&,
          std::vector<caf::actor>& ps) {
        *peers = ps;
        return caf::ok_atom::value;
      },
      [=](veil::messages::train_atom) { on_train(self, *peers); },
      [](veil::messages::stats_atom) { return sess::byte_stats{}; },
  };
}

using silent_fn = void (*)(caf::event_based_actor*,
                           const std::vector<caf::actor>&);

void stay_silent(caf::event_based_actor*, const std::vector<caf::actor>&) {}

/// A, B1 given their data; B2 the actor `odd`, called `odd_name`.
struct session_under_test {
  learners::dataset data = synthetic(300);
  std::vector<caf::actor> parties;
  actors::opboost_run run;

  session_under_test(caf::actor_system& sys, caf::actor odd,
                     const std::string& odd_name,
                     std::chrono::milliseconds timeout) {
    run.params = small_params(3);
    run.timeout = timeout;
    for (std::size_t q = 0; q < 2; ++q) {
      run.names.push_back(party_names[q]);
      parties.push_back(actors::spawn_opboost_party(sys, given_spec(data, q)));
    }
    run.names.push_back(odd_name);
    parties.push_back(std::move(odd));
  }
};

} // namespace

BOOST_FIXTURE_TEST_SUITE(opboost_failure, actor_fixture)

BOOST_AUTO_TEST_CASE(a_party_b_killed_mid_session_ends_every_party) {
  // B2 never sends its schema: A waits while B1 waits for A's split
  // request; then B1 is killed.
  session_under_test s(sys, sys.spawn(impostor<silent_fn>, stay_silent), "B2",
                       3s);
  caf::scoped_actor watcher{sys};
  for (std::size_t q = 0; q < 2; ++q)
    watcher->monitor(s.parties[q]);
  auto result = std::async(std::launch::async, [&] {
    return actors::run_opboost_actors(sys, s.parties, s.run);
  });
  BOOST_REQUIRE(result.wait_for(500ms) == std::future_status::timeout);
  auto killed = clock_type::now();
  caf::anon_send_exit(s.parties[1], caf::exit_reason::kill);
  BOOST_REQUIRE(result.wait_for(10s) == std::future_status::ready);
  auto took = clock_type::now() - killed;
  auto out = result.get();
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((took < s.run.timeout + 1s));
  BOOST_TEST((out.code == errc::party_down), out.error);
  BOOST_TEST(contains(out.error, "B1 ended while A was at step M1 ranks"),
             out.error);
  // A ended with the same reason, B1 with the kill.
  std::string reasons[2];
  for (int k = 0; k < 2; ++k)
    watcher->receive(
        [&](caf::down_msg& dm) {
          for (std::size_t q = 0; q < 2; ++q)
            if (s.parties[q].address() == dm.source)
              reasons[q] = actors::describe(dm.reason);
        },
        caf::after(10s) >> [] {});
  BOOST_TEST(contains(reasons[0], "B1 ended while A was at step"), reasons[0]);
  BOOST_TEST(contains(reasons[1], "kill"), reasons[1]);
}

BOOST_AUTO_TEST_CASE(a_silent_party_b_times_out_and_is_named) {
  session_under_test s(sys, sys.spawn(impostor<silent_fn>, stay_silent),
                       "quiet", 400ms);
  auto start = clock_type::now();
  auto out = actors::run_opboost_actors(sys, s.parties, s.run);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((clock_type::now() - start < 10 * s.run.timeout));
  BOOST_TEST((out.code == errc::timeout), out.error);
  BOOST_TEST(contains(out.error, "A heard from no peer within 0.4 s (train"),
             out.error);
  BOOST_TEST(contains(out.error, "nothing ever came from quiet"), out.error);
}

BOOST_AUTO_TEST_CASE(a_forged_schema_is_refused_naming_sender_and_step) {
  auto forge = [](caf::event_based_actor* self,
                  const std::vector<caf::actor>& peers) {
    // A schema for 7 rows (A has 300), its columns without bounds.
    op::schema m;
    m.rows = 7;
    m.names = {"x"};
    self->send(peers[0], std::move(m));
  };
  session_under_test s(sys, sys.spawn(impostor<decltype(forge)>, forge),
                       "forger", 5s);
  auto out = actors::run_opboost_actors(sys, s.parties, s.run);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((out.code == errc::protocol_error), out.error);
  BOOST_TEST(contains(out.error,
                      "A refused a M0 schema from forger at step M0 schema"),
             out.error);
}

// A stranger's protocol message is dropped, not a reason to end the
// session: it ends as it would anyway, here by the silent Party B's
// timeout, naming that party.
BOOST_AUTO_TEST_CASE(a_message_from_a_stranger_is_dropped) {
  session_under_test s(sys, sys.spawn(impostor<silent_fn>, stay_silent), "B2",
                       5s);
  auto result = std::async(std::launch::async, [&] {
    return actors::run_opboost_actors(sys, s.parties, s.run);
  });
  BOOST_REQUIRE(result.wait_for(300ms) == std::future_status::timeout);
  caf::scoped_actor stranger{sys};
  stranger->send(s.parties[0], op::ranks{300, {}});
  BOOST_TEST((result.wait_for(1s) == std::future_status::timeout));
  BOOST_REQUIRE(result.wait_for(15s) == std::future_status::ready);
  auto out = result.get();
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST((out.code != errc::unknown_sender), out.error);
  BOOST_TEST(!contains(out.error, "not a peer"), out.error);
  BOOST_TEST(contains(out.error, "B2"), out.error);
}

namespace {

/// Party q's file: an id column, its columns (A: and the label column y),
/// rows in reverse order when `reverse` (the id alignment puts them back).
std::string write_party_file(const test::temp_dir& dir,
                             const learners::dataset& d, std::size_t q,
                             bool reverse) {
  auto path = dir / (std::string(party_names[q]) + ".csv");
  std::ofstream out(path);
  out.precision(9);
  out << "id";
  for (auto j : columns_of(q))
    out << "," << d.feature_names()[j];
  if (q == 0)
    out << ",y";
  out << "\n";
  for (std::size_t k = 0; k < d.rows(); ++k) {
    auto i = reverse ? d.rows() - 1 - k : k;
    out << "r" << i;
    for (auto j : columns_of(q))
      out << "," << d.value(i, j);
    if (q == 0)
      out << "," << d.labels()[i];
    out << "\n";
  }
  return path;
}

actors::opboost_party_config loading_config(const test::temp_dir& dir,
                                            const learners::dataset& d) {
  actors::opboost_party_config cfg;
  cfg.params = small_params(4);
  cfg.timeout = 5s;
  cfg.bounds = some_bounds(d);
  for (std::size_t q = 0; q < 3; ++q) {
    actors::party_spec p;
    p.name = party_names[q];
    p.data.path = write_party_file(dir, d, q, q == 1);
    p.test_path = p.data.path; // predicts the training rows
    p.data.id_column = "id";
    if (q == 0)
      p.data.label_column = "y";
    cfg.parties.push_back(std::move(p));
  }
  return cfg;
}

/// Reads `d` back as the files hold it (9 significant digits).
learners::dataset as_written(const test::temp_dir& dir,
                             const learners::dataset& d) {
  std::vector<std::size_t> all(d.features());
  std::iota(all.begin(), all.end(), 0);
  auto path = dir / "all.csv";
  std::ofstream out(path);
  out.precision(9);
  for (std::size_t j = 0; j < d.features(); ++j)
    out << d.feature_names()[j] << ",";
  out << "y\n";
  for (std::size_t i = 0; i < d.rows(); ++i) {
    for (std::size_t j = 0; j < d.features(); ++j)
      out << d.value(i, j) << ",";
    out << d.labels()[i] << "\n";
  }
  out.close();
  learners::read_options o;
  o.label = "y";
  return learners::read_table(path, o);
}

} // namespace

BOOST_AUTO_TEST_CASE(loading_parties_train_the_model_of_given_data) {
  test::temp_dir dir;
  auto d = as_written(dir, synthetic(400));
  auto out =
      actors::opboost_session::run(loading_config(dir, d), actors::tls_files{});
  BOOST_REQUIRE_MESSAGE(out.ok(), out.error);
  actors::opboost_config given;
  given.params = small_params(4);
  for (std::size_t q = 0; q < 3; ++q)
    given.parties.push_back(given_spec(d, q, some_bounds(d)));
  auto ref = actors::opboost_session::run(std::move(given));
  BOOST_REQUIRE_MESSAGE(ref.ok(), ref.error);
  const auto& a = out.result->model.trees;
  const auto& b = ref.result->model.trees;
  BOOST_REQUIRE_EQUAL(a.size(), b.size());
  for (std::size_t t = 0; t < a.size(); ++t) {
    BOOST_REQUIRE_EQUAL(a[t].nodes.size(), b[t].nodes.size());
    for (std::size_t k = 0; k < a[t].nodes.size(); ++k) {
      BOOST_TEST(a[t].nodes[k].feature == b[t].nodes[k].feature);
      BOOST_TEST(a[t].nodes[k].threshold == b[t].nodes[k].threshold);
      BOOST_TEST(a[t].nodes[k].value == b[t].nodes[k].value);
    }
  }
  BOOST_TEST(out.result->splits == ref.result->splits);
  BOOST_TEST(out.result->margins == ref.result->margins);
  BOOST_TEST(out.result->labels == d.labels());
  BOOST_TEST(out.result->rows == 400u);
  BOOST_TEST(out.result->test_rows == 400u);
  BOOST_TEST(out.result->features == ref.result->features);
  // B1's second column and B2's two were fitted to their data.
  std::vector<std::string> fitted = {d.feature_names()[3], d.feature_names()[4],
                                     d.feature_names()[5]};
  BOOST_TEST(out.result->fitted == fitted);
}

BOOST_AUTO_TEST_CASE(restored_parties_predict_the_margins_of_their_session) {
  // Each Party B keeps its part (bounds and mechanism) in its own file;
  // new party actors that load only the rows to predict restore Party A
  // from the model and every Party B from its part. With the identity
  // mechanism, private prediction is deterministic: the training session's
  // margins bit for bit. A Party B's part that is another's is refused.
  test::temp_dir dir;
  auto d = as_written(dir, synthetic(400));
  auto cfg = loading_config(dir, d);
  cfg.params.mechanism.kind = op::mechanism_kind::identity;
  cfg.parts = {dir / "m.json", "model-1", {}};
  auto trained = actors::opboost_session::run(cfg, actors::tls_files{});
  BOOST_REQUIRE_MESSAGE(trained.ok(), trained.error);
  BOOST_REQUIRE_EQUAL(trained.result->margins.size(), 400u);
  auto again = cfg;
  again.restore = trained.result->model;
  again.features = trained.result->features;
  auto predicted = actors::opboost_session::run(again, actors::tls_files{});
  BOOST_REQUIRE_MESSAGE(predicted.ok(), predicted.error);
  BOOST_TEST(predicted.result->margins == trained.result->margins,
             boost::test_tools::per_element());
  BOOST_TEST(predicted.result->labels == d.labels(),
             boost::test_tools::per_element());

  std::filesystem::copy_file(dir / ("m.json." + std::string(party_names[1])),
                             dir / ("m.json." + std::string(party_names[2])),
                             std::filesystem::copy_options::overwrite_existing);
  auto wrong = actors::opboost_session::run(again, actors::tls_files{});
  BOOST_REQUIRE(!wrong.ok());
  BOOST_TEST(wrong.error.find(std::string(party_names[1]) + "'s part") !=
                 std::string::npos,
             wrong.error);
}

BOOST_AUTO_TEST_CASE(public_bounds_must_name_a_party_b_column) {
  test::temp_dir dir;
  auto d = synthetic(50);
  auto cfg = loading_config(dir, d);
  cfg.bounds = {{"nope", op::feature_map{0, 1}}};
  auto out = actors::opboost_session::run(cfg, actors::tls_files{});
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST((out.code == errc::bad_input), out.error);
  BOOST_TEST(contains(out.error, "column \"nope\", which no party holds"),
             out.error);
  cfg.bounds = {{d.feature_names()[0], op::feature_map{0, 1}}};
  out = actors::opboost_session::run(cfg, actors::tls_files{});
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST(contains(out.error, "of A (Party A)"), out.error);
  // A label on a Party B is refused too.
  cfg = loading_config(dir, d);
  cfg.parties[1].data.label_column = cfg.parties[0].data.label_column;
  cfg.parties[1].data.path = cfg.parties[0].data.path;
  cfg.parties[1].test_path = cfg.parties[0].data.path;
  out = actors::opboost_session::run(cfg, actors::tls_files{});
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST(contains(out.error, "B1 is a Party B and has labels"), out.error);
}

BOOST_AUTO_TEST_CASE(a_party_that_ends_during_load_is_named_at_once) {
  // B2 takes its load request and ends without answering (its node died):
  // the driver names it at once, not after the timeout.
  test::temp_dir dir;
  auto d = synthetic(50);
  auto cfg = loading_config(dir, d);
  auto unanswered = std::make_shared<std::vector<caf::response_promise>>();
  auto dies_on_load =
      [unanswered](caf::event_based_actor* self) -> caf::behavior {
    return {
        [=](veil::messages::load_atom, sess::load_request&) {
          unanswered->push_back(self->make_response_promise());
          self->quit(caf::exit_reason::kill);
        },
    };
  };
  actors::opboost_run run;
  run.params = cfg.params;
  run.timeout = 5s;
  run.load = cfg.parties;
  std::vector<caf::actor> parties;
  for (std::size_t q = 0; q < 2; ++q) {
    run.names.push_back(party_names[q]);
    parties.push_back(
        actors::opboost_party_kind().spawn(sys, party_names[q], {}));
  }
  run.names.push_back("B2");
  parties.push_back(sys.spawn(dies_on_load));
  auto start = clock_type::now();
  auto out = actors::run_opboost_actors(sys, parties, run);
  auto took = clock_type::now() - start;
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((took < 2s));
  BOOST_TEST((out.code == errc::party_down), out.error);
  BOOST_TEST(contains(out.error, "B2 ended at step load training data"),
             out.error);
}

BOOST_AUTO_TEST_CASE(a_party_b_file_error_quotes_no_cell) {
  // A bad cell in B1's file: the error reaching the coordinator names the
  // file, line and column, not the cell's text.
  test::temp_dir dir;
  auto d = synthetic(20);
  auto cfg = loading_config(dir, d);
  auto path = dir / "B1-bad.csv";
  {
    std::ofstream out(path);
    out << "id," << d.feature_names()[2] << "," << d.feature_names()[3] << "\n";
    out << "r0,1,2\nr1,3,4\nr2,5,SECRET-4711\n";
  }
  cfg.parties[1].data.path = path;
  cfg.parties[1].test_path = path;
  auto out = actors::opboost_session::run(cfg, actors::tls_files{});
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((out.code == errc::bad_input), out.error);
  BOOST_TEST(!contains(out.error, "SECRET"), out.error);
  BOOST_TEST(contains(out.error, "B1-bad.csv:4: column 3"), out.error);
  BOOST_TEST(contains(out.error, "is not a number"), out.error);
}

BOOST_AUTO_TEST_CASE(a_party_b_waiting_for_a_hung_party_a_gives_up) {
  // Party A takes the roster and the train request, then hangs (its
  // connection up): Party B ends after its idle bound, naming A.
  auto data = synthetic(60);
  actors::opboost_run run;
  run.params = small_params(2);
  run.timeout = 100ms;
  run.names = {"A", "B1"};
  std::vector<caf::actor> parties = {
      sys.spawn(impostor<silent_fn>, stay_silent),
      actors::spawn_opboost_party(sys, given_spec(data, 1))};
  auto result = std::async(std::launch::async, [&] {
    return actors::run_opboost_actors(sys, parties, run);
  });
  auto bound = actors::idle_timeouts * run.timeout;
  if (result.wait_for(bound + 5s) != std::future_status::ready) {
    caf::anon_send_exit(parties[0], caf::exit_reason::kill);
    caf::anon_send_exit(parties[1], caf::exit_reason::kill);
    BOOST_FAIL("Party B waited for ever");
  }
  auto out = result.get();
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST_MESSAGE(out.error);
  BOOST_TEST((out.code == errc::timeout), out.error);
  BOOST_TEST(
      contains(out.error, "B1 waited for a message from its peers for 3 s"),
      out.error);
  BOOST_TEST(contains(out.error, "nothing ever came from A"), out.error);
}

BOOST_AUTO_TEST_SUITE_END()
