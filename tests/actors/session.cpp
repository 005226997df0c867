// A whole session of the plain protocol on party actors in one actor
// system: with one table's columns dealt out in order, the federated model
// equals centralized training's split for split, federated prediction gives
// the same margins bit for bit, and the byte counts add up. Rows are joined
// on an id column when there is one; bad data stops the session with a
// message that names the party.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "actors/live_session.hpp"
#include "learners/boost/booster.hpp"
#include "learners/data/synthetic.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/text.hpp"

using namespace veil;
using learners::dataset;
using protocols::session::errc;
using test::actor_fixture;
using test::column_split;
using veil::test::temp_dir;

namespace {

using veil::test::contains;

/// Bounds for `parties` contiguous blocks of `m` columns, the first ones
/// one column larger when m does not divide evenly.
std::vector<std::size_t> even_bounds(std::size_t m, std::size_t parties) {
  std::vector<std::size_t> b{0};
  for (std::size_t q = 0; q < parties; ++q)
    b.push_back(b.back() + m / parties + (q < m % parties ? 1 : 0));
  return b;
}

dataset small_table(std::size_t rows, std::uint64_t seed, bool ids) {
  learners::classification_spec s;
  s.rows = rows;
  s.features = 9;
  s.informative = 5;
  s.redundant = 2;
  s.seed = seed;
  auto d = learners::make_classification(s);
  if (ids)
    for (std::size_t i = 0; i < rows; ++i)
      d.ids().push_back("row" + std::to_string(i * 7919 % 100003));
  return d;
}

/// A session over `rows` rows of small_table(seed) in one file in `dir`,
/// its columns dealt to 3 parties: 3 trees of depth 3, one thread.
actors::session_config small_session(const temp_dir& dir, std::size_t rows,
                                     std::uint64_t seed) {
  auto d = small_table(rows, seed, false);
  auto file = dir / "all.csv";
  learners::write_csv(d, file, "label");
  auto c = column_split(file, "", d.feature_names(),
                        even_bounds(d.features(), 3), "label");
  c.params.rounds = 3;
  c.params.tree.max_depth = 3;
  c.params.threads = 1;
  return c;
}

std::vector<std::size_t> shuffled(std::size_t n, std::uint64_t seed) {
  std::vector<std::size_t> v(n);
  std::iota(v.begin(), v.end(), 0);
  std::mt19937_64 rng(seed);
  std::shuffle(v.begin(), v.end(), rng);
  return v;
}

} // namespace

BOOST_FIXTURE_TEST_SUITE(session, actor_fixture)

BOOST_AUTO_TEST_CASE(adult_three_parties_equals_centralized) {
  auto dir = std::string(VEIL_SHARED_DIR) + "/datasets/";
  auto train_path = dir + "adult_train.csv.gz";
  auto test_path = dir + "adult_test.csv.gz";
  if (!std::filesystem::exists(train_path) ||
      !std::filesystem::exists(test_path)) {
    BOOST_TEST_MESSAGE("skipped: no " << train_path << " or " << test_path);
    return;
  }
  learners::read_options o;
  o.label = "label";
  auto train = learners::read_csv(train_path, o);
  auto test = learners::read_csv(test_path, o);
  learners::booster_params p;
  p.rounds = 10;
  p.tree.max_depth = 6;
  p.threads = 1;
  auto central = learners::train(train, nullptr, p).model;

  auto bounds = even_bounds(train.features(), 3);
  auto c = column_split(train_path, test_path, train.feature_names(), bounds,
                        "label");
  c.params = p;
  std::vector<int> progress;
  auto out = run(c, [&](const protocols::session::progress_report& r) {
    if (r.phase == "train")
      progress.push_back(r.done);
  });
  if (!out.ok())
    BOOST_FAIL(out.error);
  const auto& r = *out.result;
  BOOST_TEST(r.names == (std::vector<std::string>{"p0", "p1", "p2"}));
  BOOST_TEST(r.rows == train.rows());
  BOOST_TEST(r.test_rows == test.rows());
  test::require_same_model(r, central, bounds);
  auto expected = central.predict_margin(test);
  BOOST_REQUIRE_EQUAL(r.margins.size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i)
    BOOST_REQUIRE_EQUAL(r.margins[i], expected[i]);
  BOOST_TEST(r.metrics_on == "test");
  BOOST_REQUIRE((std::find(r.metric_names.begin(), r.metric_names.end(),
                           "auc") != r.metric_names.end()));
  test::check_bytes(r);
  BOOST_TEST(!progress.empty());
  BOOST_TEST(progress.back() == 10);
  BOOST_TEST(std::is_sorted(progress.begin(), progress.end()));
  // Each passive party's split table names its own columns.
  for (std::size_t q = 1; q < 3; ++q)
    for (const auto& s : r.splits[q].splits)
      BOOST_TEST((std::find(r.features[q].begin(), r.features[q].end(),
                            s.feature) != r.features[q].end()));
}

BOOST_AUTO_TEST_CASE(rows_are_joined_on_the_id_column) {
  temp_dir dir;
  auto d = small_table(1500, 11, true);
  // Party q's file holds the rows in its own order; party 0's is the
  // session's order.
  std::vector<std::string> files;
  for (std::uint64_t q = 0; q < 3; ++q) {
    auto rows = q == 0 ? std::vector<std::size_t>{} : shuffled(d.rows(), q);
    auto part = q == 0 ? d : d.select_rows(rows);
    files.push_back(dir / ("party" + std::to_string(q) + ".csv"));
    learners::write_csv(part, files.back(), "label", "id");
  }
  learners::booster_params p;
  p.rounds = 5;
  p.tree.max_depth = 4;
  p.threads = 1;
  auto central = learners::train(d, nullptr, p).model;
  auto bounds = even_bounds(d.features(), 3);
  auto c = column_split("", "", d.feature_names(), bounds, "label", "id");
  for (std::size_t q = 0; q < 3; ++q)
    c.parties[q].data.path = files[q];
  c.params = p;
  auto out = run(c);
  if (!out.ok())
    BOOST_FAIL(out.error);
  test::require_same_model(*out.result, central, bounds);
  BOOST_TEST(out.result->metrics_on == "train");
  auto expected = central.predict_margin(d);
  BOOST_TEST(out.result->margins == expected, boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(split_tables_stay_with_their_parties_unless_exported) {
  temp_dir dir;
  auto c = small_session(dir, 800, 12);
  auto exported = run(c);
  BOOST_REQUIRE_MESSAGE(exported.ok(), exported.error);
  c.export_splits = false;
  auto kept = run(c);
  BOOST_REQUIRE_MESSAGE(kept.ok(), kept.error);
  std::size_t passive_splits = 0;
  for (std::size_t q = 0; q < 3; ++q) {
    BOOST_TEST(kept.result->splits[q].splits.empty());
    BOOST_TEST(kept.result->splits[q].party.empty());
    if (q > 0)
      passive_splits += exported.result->splits[q].splits.size();
  }
  BOOST_TEST(passive_splits > 0u);
  // The federated prediction does not need them at the coordinator.
  BOOST_TEST(kept.result->margins == exported.result->margins,
             boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_prediction_session_restores_the_parts_bit_for_bit) {
  // Training keeps each passive party's split table in its own file; a new
  // session over new party actors restores the parts (the active party's
  // from the model) and predicts the same margins as the training session,
  // with multi-class output and missing values too.
  temp_dir dir;
  auto c = small_session(dir, 900, 21);
  c.export_splits = false;
  c.parts = {dir / "m.json", "model-1", {}};
  c.params.objective = learners::objective_kind::multi_softmax;
  c.params.num_class = 3;
  {
    auto d = small_table(900, 21, false);
    for (std::size_t i = 0; i < d.rows(); ++i) {
      d.labels()[i] = static_cast<float>(i % 3);
      if (i % 7 == 0)
        d.value(i, 1) = std::numeric_limits<float>::quiet_NaN();
    }
    learners::write_csv(d, c.parties[0].data.path, "label");
  }
  auto trained = run(c);
  BOOST_REQUIRE_MESSAGE(trained.ok(), trained.error);
  BOOST_TEST(std::filesystem::exists(dir / "m.json.p1"));
  BOOST_TEST(std::filesystem::exists(dir / "m.json.p2"));
  BOOST_TEST(!std::filesystem::exists(dir / "m.json.p0"));

  auto p = c;
  p.restore = trained.result->model;
  auto predicted = run(p);
  BOOST_REQUIRE_MESSAGE(predicted.ok(), predicted.error);
  BOOST_REQUIRE(!trained.result->margins.empty());
  BOOST_TEST(predicted.result->margins == trained.result->margins,
             boost::test_tools::per_element());
  BOOST_TEST(predicted.result->metric_values == trained.result->metric_values,
             boost::test_tools::per_element());

  // A part of another model (trained again to the same file, say) is
  // refused instead of answering for this one.
  auto stale = p;
  stale.parts.id = "model-2";
  auto refused = run(stale);
  BOOST_REQUIRE(!refused.ok());
  BOOST_TEST(contains(refused.error, "belongs to model model-1, not to model "
                                     "model-2"),
             refused.error);

  // Another party's table is refused, naming the party and the file.
  std::filesystem::copy_file(dir / "m.json.p1", dir / "m.json.p2",
                             std::filesystem::copy_options::overwrite_existing);
  auto wrong = run(p);
  BOOST_REQUIRE(!wrong.ok());
  BOOST_TEST((wrong.code == protocols::session::errc::bad_input));
  BOOST_TEST(contains(wrong.error, "p2"), wrong.error);
  BOOST_TEST(contains(wrong.error, "p1's part"), wrong.error);
}

BOOST_AUTO_TEST_CASE(a_live_session_keeps_its_parties_between_calls) {
  // open -> train -> predict -> predict -> save parts -> stats -> close on
  // one set of parties: each prediction equals the one-shot session's, bit
  // for bit; the second costs the passive parties a second exchange; the
  // parts saved afterwards restore a prediction session that predicts
  // twice too.
  temp_dir dir;
  auto c = small_session(dir, 600, 23);
  c.export_splits = false;
  auto once = run(c);
  BOOST_REQUIRE_MESSAGE(once.ok(), once.error);

  actors::live_session<actors::plain_protocol> s;
  std::int32_t reports = 0;
  s.on_progress([&](const protocols::session::progress_report&) { ++reports; });
  BOOST_REQUIRE(s.open(c, {}));
  BOOST_REQUIRE(s.train());
  BOOST_TEST(reports > 0);
  BOOST_REQUIRE(s.predict());
  BOOST_TEST(s.result().margins == once.result->margins,
             boost::test_tools::per_element());
  BOOST_REQUIRE(s.collect_stats());
  auto received = s.result().bytes[1].total_received();
  if (!s.predict()) {
    auto e = s.close();
    BOOST_FAIL("second predict: " << e.error << " code " << int(e.code));
  }
  BOOST_REQUIRE(s.collect_stats());
  BOOST_TEST(s.result().margins == once.result->margins,
             boost::test_tools::per_element());
  BOOST_TEST(s.result().bytes[1].total_received() > received);
  BOOST_TEST(s.result().predictions == 2u);
  BOOST_REQUIRE(s.save_parts({dir / "live.json", "live-1", {}}));
  auto out = s.close();
  BOOST_REQUIRE_MESSAGE(out.ok(), out.error);
  BOOST_TEST(std::filesystem::exists(dir / "live.json.p1"));

  auto p = c;
  p.restore = once.result->model;
  p.parts = {dir / "live.json", "live-1", {}};
  actors::live_session<actors::plain_protocol> again;
  BOOST_REQUIRE(again.open(p, {}));
  BOOST_TEST(!again.train()); // a prediction session does not train
  auto refused = again.close();
  BOOST_TEST(contains(refused.error, "not in a prediction session"),
             refused.error);
  BOOST_REQUIRE(again.open(p, {}));
  BOOST_REQUIRE(again.predict());
  BOOST_REQUIRE(again.predict());
  BOOST_TEST(again.result().margins == once.result->margins,
             boost::test_tools::per_element());
  BOOST_REQUIRE(again.close().ok());

  // Rows to predict without the label column: the active party reads them
  // without labels where it runs (on its node too), and there are no
  // metrics.
  auto unlabeled = small_table(600, 23, false);
  unlabeled.labels().clear();
  learners::write_csv(unlabeled, dir / "unlabeled.csv");
  auto q = p;
  q.parties[0].data.path = dir / "unlabeled.csv";
  auto blind = run(q);
  BOOST_REQUIRE_MESSAGE(blind.ok(), blind.error);
  BOOST_TEST(blind.result->margins == once.result->margins,
             boost::test_tools::per_element());
  BOOST_TEST(blind.result->metric_values.empty());
}

BOOST_AUTO_TEST_CASE(an_idle_session_ends_after_its_idle_bound) {
  // One liveness rule for every protocol: a party with nothing to do
  // leaves after net.idle_timeout without a message (here 0.3 s, against
  // the 30 timeouts of 5 s it would wait by default), naming the bound,
  // and the live session's next call fails with its reason.
  temp_dir dir;
  auto c = small_session(dir, 300, 24);
  c.timeout = std::chrono::seconds(5);
  c.link.idle_seconds = 0.3;
  actors::live_session<actors::plain_protocol> s;
  BOOST_REQUIRE(s.open(c, {}));
  BOOST_REQUIRE(s.train());
  // Waiting is the point here: the bound is wall-clock time.
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  BOOST_TEST(!s.predict());
  auto out = s.close();
  BOOST_TEST((out.code == protocols::session::errc::timeout), out.error);
  BOOST_TEST(contains(out.error, "for 0.3 s (net.idle_timeout)"), out.error);
}

BOOST_AUTO_TEST_CASE(a_party_writes_its_part_only_over_an_earlier_part) {
  // The part's path comes from the coordinator: a party replaces a file
  // there only if it is a split table (a model saved again), never
  // another file.
  temp_dir dir;
  auto c = small_session(dir, 300, 22);
  c.parts = {dir / "m.json", "model-1", {}};
  auto first = run(c);
  BOOST_REQUIRE_MESSAGE(first.ok(), first.error);
  auto again = run(c); // over its own parts
  BOOST_REQUIRE_MESSAGE(again.ok(), again.error);
  {
    std::ofstream precious(dir / "m.json.p2");
    precious << "id,secret\n1,2\n";
  }
  auto refused = run(c);
  BOOST_REQUIRE(!refused.ok());
  BOOST_TEST(contains(refused.error, "refusing to write the model part"),
             refused.error);
  BOOST_TEST(contains(refused.error, "m.json.p2"), refused.error);
  std::ifstream in(dir / "m.json.p2");
  std::string line;
  std::getline(in, line);
  BOOST_TEST(line == "id,secret");
}

BOOST_AUTO_TEST_CASE(emulated_links_delay_every_round_and_change_nothing_else) {
  // Every message on a link arrives latency + bytes/bandwidth after it is
  // sent, behind the earlier ones. The plain protocol is request and
  // response on each link, so a link's rounds (the two parties' turns on
  // it) follow one another, each at least a latency after the last: the
  // session takes at least rounds x latency on its busiest link. The
  // predictions, bytes and rounds are those of the session without
  // emulation.
  temp_dir dir;
  auto c = small_session(dir, 1200, 13);
  auto plain = run(c);
  BOOST_REQUIRE_MESSAGE(plain.ok(), plain.error);
  c.link = {20, 8}; // 20 ms, 8 Mbps: a byte per microsecond
  auto slow = run(c);
  BOOST_REQUIRE_MESSAGE(slow.ok(), slow.error);
  const auto& a = *plain.result;
  const auto& b = *slow.result;
  BOOST_TEST(a.margins == b.margins, boost::test_tools::per_element());
  BOOST_REQUIRE_EQUAL(a.bytes.size(), b.bytes.size());
  double busiest = 0;
  for (std::size_t q = 0; q < a.bytes.size(); ++q) {
    BOOST_TEST(a.bytes[q].sent == b.bytes[q].sent,
               boost::test_tools::per_element());
    BOOST_TEST(a.bytes[q].link_turns == b.bytes[q].link_turns,
               boost::test_tools::per_element());
    if (q == 0)
      continue;
    // Passive party q talks to the active party only: its link both ways.
    const auto& mine = b.bytes[q];
    const auto& active = b.bytes[0];
    BOOST_REQUIRE_EQUAL(mine.link_peers.size(), 1u);
    auto k = static_cast<std::size_t>(std::find(active.link_peers.begin(),
                                                active.link_peers.end(),
                                                static_cast<std::int32_t>(q)) -
                                      active.link_peers.begin());
    BOOST_REQUIRE_LT(k, active.link_peers.size());
    double rounds =
        static_cast<double>(mine.link_turns[0] + active.link_turns[k]);
    busiest = std::max(busiest, rounds * 0.020);
  }
  BOOST_TEST_MESSAGE("emulated "
                     << b.train_seconds << " s + " << b.predict_seconds
                     << " s, busiest link's latency " << busiest
                     << " s, unemulated " << a.train_seconds << " s");
  // Every round falls in training or prediction.
  BOOST_TEST(b.train_seconds + b.predict_seconds >= busiest);
  BOOST_TEST(busiest > 0.2); // it did count rounds
}

BOOST_AUTO_TEST_CASE(the_label_holder_is_the_active_party_wherever_listed) {
  temp_dir dir;
  auto d = small_table(800, 5, false);
  auto file = dir / "d.csv";
  learners::write_csv(d, file);
  learners::booster_params p;
  p.rounds = 3;
  p.threads = 1;
  auto central = learners::train(d, nullptr, p).model;
  auto bounds = even_bounds(d.features(), 2);
  auto c = column_split(file, "", d.feature_names(), bounds, "label");
  c.params = p;
  std::swap(c.parties[0], c.parties[1]); // the passive party listed first
  auto out = run(c);
  if (!out.ok())
    BOOST_FAIL(out.error);
  BOOST_TEST(out.result->names == (std::vector<std::string>{"p0", "p1"}));
  test::require_same_model(*out.result, central, bounds);
}

BOOST_AUTO_TEST_CASE(mismatched_ids_name_the_party_and_an_id) {
  temp_dir dir;
  auto d = small_table(300, 3, true);
  auto a = dir / "a.csv";
  auto b = dir / "b.csv";
  learners::write_csv(d, a, "label", "id");
  auto other = d;
  other.ids()[17] = "stranger";
  learners::write_csv(other, b, "label", "id");
  auto c = column_split(a, "", d.feature_names(), {0, 4, 9}, "label", "id");
  c.parties[1].data.path = b;
  auto out = run(c);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST((out.code == errc::bad_input));
  BOOST_TEST(contains(out.error, "p1"), out.error);
  BOOST_TEST(contains(out.error, "stranger"), out.error);

  // Fewer rows on one side: the id it lacks is named.
  std::vector<std::size_t> head(299);
  std::iota(head.begin(), head.end(), 0);
  learners::write_csv(d.select_rows(head), b, "label", "id");
  out = run(c);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST(contains(out.error, d.ids()[299]), out.error);
  BOOST_TEST(contains(out.error, "p1"), out.error);
}

BOOST_AUTO_TEST_CASE(without_ids_row_counts_must_match) {
  temp_dir dir;
  auto d = small_table(300, 3, false);
  auto a = dir / "a.csv";
  auto b = dir / "b.csv";
  learners::write_csv(d, a);
  std::vector<std::size_t> head(250);
  std::iota(head.begin(), head.end(), 0);
  learners::write_csv(d.select_rows(head), b);
  auto c = column_split(a, "", d.feature_names(), {0, 4, 9}, "label");
  c.parties[1].data.path = b;
  auto out = run(c);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST((out.code == errc::bad_input));
  BOOST_TEST(contains(out.error, "p1"), out.error);
  BOOST_TEST(contains(out.error, "250 rows"), out.error);
  BOOST_TEST(contains(out.error, "300"), out.error);
}

BOOST_AUTO_TEST_CASE(bad_configurations_are_refused_before_any_load) {
  actors::session_config c;
  c.parties = {{"a", {"x.csv", "", {}, "label"}, "", "", 0},
               {"b", {"y.csv", "", {}, "label"}, "", "", 0}};
  c.eval = actors::evaluation::none;
  auto out = run(c);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST((out.code == errc::bad_input));
  BOOST_TEST(contains(out.error, "label column is set on 2 parties"),
             out.error);
  c.parties[1].data.label_column.clear();
  c.parties[1].name = "a";
  out = run(c);
  BOOST_TEST(contains(out.error, "used twice"), out.error);
  c.parties[1].name = "b";
  c.parties[1].data.id_column = "id";
  out = run(c);
  BOOST_TEST(contains(out.error, "id column"), out.error);
  c.parties.pop_back();
  out = run(c);
  BOOST_TEST(contains(out.error, "at least 2 parties"), out.error);
}

BOOST_AUTO_TEST_CASE(bad_data_names_the_party_and_the_file) {
  temp_dir dir;
  auto d = small_table(200, 3, true);
  auto a = dir / "a.csv";
  learners::write_csv(d, a, "label", "id");
  auto c = column_split(a, "", d.feature_names(), {0, 3, 6, 9}, "label", "id");
  c.parties[1].data.path = dir / "missing.csv";
  auto out = run(c);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST((out.code == errc::bad_input));
  BOOST_TEST(contains(out.error, "p1"), out.error);
  BOOST_TEST(contains(out.error, "missing.csv"), out.error);

  c.parties[1].data.path = a;
  c.parties[1].data.feature_columns.push_back("no_such_column");
  out = run(c);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST(contains(out.error, "p1"), out.error);
  BOOST_TEST(contains(out.error, "no_such_column"), out.error);

  // Duplicate ids in one party's file.
  auto dup = d;
  dup.ids()[5] = dup.ids()[6];
  auto b = dir / "b.csv";
  learners::write_csv(dup, b, "label", "id");
  c.parties[1].data.feature_columns.pop_back();
  c.parties[2].data.path = b;
  out = run(c);
  BOOST_REQUIRE(!out.ok());
  BOOST_TEST(contains(out.error, "p2"), out.error);
  BOOST_TEST(contains(out.error, dup.ids()[5]), out.error);
}

BOOST_AUTO_TEST_SUITE_END()
