// FEVERLESS in the actor runtime: every wire message survives CAF's binary
// serializer (alone and type-erased), and a session of client actors with
// noise off trains the same model as the plain baseline through the same
// actors.
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/binary_deserializer.hpp>
#include <caf/binary_serializer.hpp>
#include <caf/deep_to_string.hpp>
#include <caf/make_message.hpp>
#include <caf/message.hpp>
#include <caf/scoped_actor.hpp>

#include "actors/errors.hpp"
#include "actors/feverless_client.hpp"
#include "actors/feverless_session.hpp"
#include "actors/hosting.hpp"
#include "actors/live_session.hpp"
#include "learners/data/csv_reader.hpp"
#include "messages/feverless.hpp"
#include "messages/register.hpp"
#include "messages/type_ids.hpp"
#include "tests/actors/fixture.hpp"
#include "tests/actors/round_trip.hpp"

using namespace veil;
namespace fv = veil::protocols::feverless;

namespace {

using fixture = veil::test::round_trip_fixture;

template <std::size_t N>
std::array<std::uint8_t, N> bytes_from(std::uint8_t start) {
  std::array<std::uint8_t, N> a{};
  for (std::size_t i = 0; i < N; ++i)
    a[i] = static_cast<std::uint8_t>(start + i);
  return a;
}

protocols::crypto::lottery_ticket ticket(std::uint8_t s) {
  return {bytes_from<32>(s), bytes_from<64>(static_cast<std::uint8_t>(s + 1))};
}

} // namespace

BOOST_AUTO_TEST_SUITE(feverless)

BOOST_FIXTURE_TEST_SUITE(wire_messages, fixture)

BOOST_AUTO_TEST_CASE(every_wire_struct_round_trips) {
  fv::key_announce ka{100,
                      25,
                      3,
                      bytes_from<32>(1),
                      bytes_from<32>(7),
                      bytes_from<64>(9),
                      {1, 2, 3},
                      std::vector<std::uint8_t>(64, 5)};
  auto ka2 = round_trip(ka);
  BOOST_TEST(ka2.lottery_tips == ka.lottery_tips);
  BOOST_TEST(ka2.sig == ka.sig);
  BOOST_TEST(ka2.session_key == ka.session_key);
  BOOST_TEST(ka2.params_digest == ka.params_digest);
  BOOST_TEST(ka2.paillier_key == ka.paillier_key);
  BOOST_TEST(ka2.rows == 100u);

  fv::query_batch qb{1, 2, {5, 6}, {1, 2}, {0, 3}, {7}, {8, 9}};
  auto qb2 = round_trip(qb);
  BOOST_TEST(qb2.qids == qb.qids);
  BOOST_TEST(qb2.nonces == qb.nonces);
  BOOST_TEST(qb2.features == qb.features);
  BOOST_TEST(qb2.held == qb.held);
  BOOST_TEST(qb2.buckets == qb.buckets);

  fv::lead_tickets lt{1,
                      2,
                      {ticket(3), ticket(40)},
                      bytes_from<32>(11),
                      bytes_from<32>(12),
                      {0x5a, 0x01}};
  auto lt2 = round_trip(lt);
  BOOST_TEST(lt2.selections == lt.selections);
  BOOST_TEST(lt2.reveal == lt.reveal);
  BOOST_TEST(lt2.noise_reveal == lt.noise_reveal);
  BOOST_REQUIRE_EQUAL(lt2.tickets.size(), 2u);
  BOOST_TEST(lt2.tickets[1].sig == lt.tickets[1].sig);
  BOOST_TEST(lt2.tickets[1].value == lt.tickets[1].value);

  fv::threshold_tickets tt{1, 2, 3, {4}, {5}, {ticket(6)}};
  auto tt2 = round_trip(tt);
  BOOST_TEST(tt2.round == 3u);
  BOOST_TEST(tt2.tickets[0].sig == tt.tickets[0].sig);

  fv::noise_offers no{1, 2, 3, {1, 0}, {ticket(8)}, {~0ull}, {42}};
  auto no2 = round_trip(no);
  BOOST_TEST(no2.g == no.g);
  BOOST_TEST(no2.volunteer == no.volunteer);
  BOOST_TEST(no2.tickets[0].value == no.tickets[0].value);

  fv::noise_notice nn{1, 2, 3, {1}, 4};
  BOOST_TEST(round_trip(nn).redo == 4u);

  fv::masked_sums msum{1, 2, {1, 2}, {3, 4}};
  BOOST_TEST(round_trip(msum).h == msum.h);

  fv::encrypted_sums es{1, 2, {9, 8, 7}, {6}};
  BOOST_TEST(round_trip(es).g == es.g);

  auto nan = std::numeric_limits<double>::quiet_NaN();
  auto inf = std::numeric_limits<double>::infinity();
  fv::plain_sums ps{1, 2, {-0.0, nan}, {inf, 1.5}};
  auto ps2 = round_trip(ps);
  BOOST_TEST(std::signbit(ps2.g[0]));
  BOOST_TEST(std::isnan(ps2.g[1]));
  BOOST_TEST(ps2.h[0] == inf);

  fv::best_gains bg{1, 2, {-inf, 0.5}, {1, 0}};
  auto bg2 = round_trip(bg);
  BOOST_TEST(bg2.gains[0] == -inf);
  BOOST_TEST(bg2.has_totals == bg.has_totals);

  fv::node_decisions nd{1, 2, {3}, {0xAB}, {0.25}, {-0.5}, {4, 5}, {nan, 1}};
  auto nd2 = round_trip(nd);
  BOOST_TEST(nd2.goes_left_bits == nd.goes_left_bits);
  BOOST_TEST(std::isnan(nd2.leaf_weights[0]));
  BOOST_TEST(nd2.right_weights == nd.right_weights);

  fv::predict_query pq{3, {0, 1}, {2, 3}, {0, 1, 2}, {7, 9}};
  BOOST_TEST(round_trip(pq).rows == pq.rows);
  fv::predict_answer pa{3, {1, 2}};
  BOOST_TEST(round_trip(pa).goes_left_bits == pa.goes_left_bits);
  fv::failure f{"masked", "bad length"};
  BOOST_TEST(round_trip(f).reason == f.reason);
}

BOOST_AUTO_TEST_CASE(session_messages_round_trip) {
  veil::messages::fvl::identity_key k{bytes_from<32>(5)};
  BOOST_TEST(round_trip(k).key == k.key);
  // The params cross the wire with the roster: every field but test_hooks.
  fv::params ps;
  ps.protocol = fv::mode::ahe;
  ps.session = 0xFEED'BEEF'0000'0001ull;
  ps.trees = 7;
  ps.max_depth = 5;
  ps.eta = 0.1;
  ps.lambda = 2.5;
  ps.gamma = 0.25;
  ps.split_threshold = -1.5;
  ps.buckets = 16;
  ps.frac_bits = 40;
  ps.budget = fv::budget_kind::total;
  ps.epsilon = 0.7;
  ps.delta = 1e-7;
  ps.total_split = fv::composition::basic;
  ps.calib = fv::calibration::classical;
  ps.sensitivity_g = 2;
  ps.sensitivity_h = 0.75;
  ps.source_noise = false;
  ps.hessian_noise = true; // not the default
  ps.hide_labels = true;
  ps.noise = false;
  ps.selection = fv::noise_selection::portion;
  ps.portion = 0.75;
  ps.election = fv::election_scope::per_batch;
  ps.paillier_bits = 1024; // not the default
  ps.max_delta_step = 0.375;
  ps.test_hooks = true;
  // The settings travel packed in the one roster of every protocol.
  veil::messages::fvl::roster_settings r{std::vector<std::uint8_t>(96, 3), ps};
  protocols::session::roster base{2,  {"a", "b", "c"},        1500, {5, 100},
                                  -1, veil::messages::pack(r)};
  auto base2 = round_trip(base);
  BOOST_TEST(base2.names == base.names);
  BOOST_TEST(base2.link.latency_ms == 5.0);
  BOOST_TEST(base2.link.bandwidth_mbps == 100.0);
  veil::messages::fvl::roster_settings r2;
  BOOST_REQUIRE(veil::messages::unpack(base2.settings, r2));
  BOOST_TEST(r2.keys == r.keys);
  BOOST_TEST(!r2.params.test_hooks); // local to a process
  r2.params.test_hooks = true;
  BOOST_TEST((r2.params.digest() == ps.digest()));
  BOOST_TEST(r2.params.paillier_bits == 1024);
  BOOST_TEST((r2.params.election == fv::election_scope::per_batch));
  BOOST_TEST(r2.params.split_threshold == -1.5);
  BOOST_TEST(r2.params.max_delta_step == 0.375);
  BOOST_TEST(!r2.params.source_noise);
  BOOST_TEST(r2.params.hessian_noise);
  BOOST_TEST(r2.params.hide_labels);
  veil::messages::fvl::eval_labels e{{0, 4}, {1.0f, 0.0f}};
  auto e2 = round_trip(e);
  BOOST_TEST(e2.rows == e.rows);
  BOOST_TEST(e2.labels == e.labels);
  fv::training_report t;
  t.privacy.release_epsilon = 0.25;
  t.privacy.against = "any one other client";
  t.privacy.total_epsilon = 1.5;
  t.privacy.realised_record_queries = 7;
  t.privacy.total_by_zcdp = false;
  t.privacy.warning = "w";
  t.split_thresholds = {std::numeric_limits<float>::quiet_NaN()};
  t.split_trees = {1};
  t.split_buckets = {7};
  t.split_default_left = {1};
  // It travels packed in the one trained message of every protocol.
  protocols::session::trained sent;
  sent.report = veil::messages::pack(t);
  fv::training_report t2;
  BOOST_REQUIRE(veil::messages::unpack(round_trip(sent).report, t2));
  BOOST_TEST(t2.privacy.release_epsilon == 0.25);
  BOOST_TEST(t2.privacy.against == "any one other client");
  BOOST_TEST(t2.privacy.total_epsilon == 1.5);
  BOOST_TEST(t2.privacy.realised_record_queries == 7u);
  BOOST_TEST(!t2.privacy.total_by_zcdp);
  BOOST_TEST(t2.privacy.warning == "w");
  BOOST_TEST(std::isnan(t2.split_thresholds[0]));
  BOOST_TEST(t2.split_buckets == std::vector<std::int32_t>{7});
  BOOST_TEST(t2.split_default_left == std::vector<std::uint8_t>{1});
  // A truncated report does not decode.
  sent.report.pop_back();
  BOOST_TEST(!veil::messages::unpack(sent.report, t2));
}

BOOST_AUTO_TEST_SUITE_END()

namespace {

learners::dataset bank_sample(std::size_t rows) {
  auto path = std::string(VEIL_SHARED_DIR) + "/datasets/bank_marketing.csv.gz";
  if (!std::filesystem::exists(path))
    return {};
  learners::read_options o;
  o.label = "label";
  auto all = learners::read_csv(path, o);
  std::vector<std::size_t> pick;
  for (std::size_t k = 0; k < rows; ++k)
    pick.push_back(k * all.rows() / rows);
  return all.select_rows(pick);
}

/// `n` clients dealt `d`'s columns in blocks and its labels round robin;
/// every client predicts the training rows.
actors::feverless_config deal(const learners::dataset& d, fv::mode m,
                              std::size_t n, bool export_splits = true) {
  actors::feverless_config cfg;
  cfg.params.protocol = m;
  cfg.params.trees = 2;
  cfg.params.max_depth = 3;
  cfg.params.session = 11;
  cfg.params.noise = false;
  cfg.test_seed = 5;
  cfg.timeout = std::chrono::milliseconds(60000);
  for (std::size_t c = 0; c < n; ++c) {
    actors::feverless_client_spec s;
    s.name = "client" + std::to_string(c);
    auto lo = d.features() * c / n, hi = d.features() * (c + 1) / n;
    s.features = fv::column_block(d, lo, hi);
    for (std::size_t i = 0; i < d.rows(); ++i)
      if ((i * 7 + 3) % n == c) {
        s.labels.rows.push_back(static_cast<std::uint32_t>(i));
        s.labels.labels.push_back(d.labels()[i]);
      }
    s.eval = fv::column_block(d, lo, hi);
    cfg.parties.push_back(std::move(s));
  }
  cfg.export_splits = export_splits;
  return cfg;
}

actors::feverless_outcome run(const learners::dataset& d, fv::mode m,
                              std::size_t n, bool export_splits = true) {
  return actors::feverless_session::run(deal(d, m, n, export_splits));
}

} // namespace

BOOST_AUTO_TEST_CASE(actor_session_without_noise_equals_plain_mode) {
  auto d = bank_sample(600);
  if (d.rows() == 0) {
    BOOST_TEST_MESSAGE("bank_marketing.csv.gz absent: skipped");
    return;
  }
  auto a = run(d, fv::mode::feverless, 4);
  BOOST_REQUIRE_MESSAGE(a.ok(), a.error);
  auto b = run(d, fv::mode::plain, 4);
  BOOST_REQUIRE_MESSAGE(b.ok(), b.error);
  const auto& ta = a.result->model.trees;
  const auto& tb = b.result->model.trees;
  BOOST_REQUIRE_EQUAL(ta.size(), tb.size());
  std::size_t splits = 0;
  for (std::size_t t = 0; t < ta.size(); ++t) {
    BOOST_REQUIRE_EQUAL(ta[t].nodes.size(), tb[t].nodes.size());
    for (std::size_t i = 0; i < ta[t].nodes.size(); ++i) {
      const auto& u = ta[t].nodes[i];
      const auto& v = tb[t].nodes[i];
      BOOST_REQUIRE_EQUAL(u.is_leaf(), v.is_leaf());
      if (u.is_leaf()) {
        BOOST_TEST(std::abs(u.value - v.value) < 1e-6);
        continue;
      }
      ++splits;
      BOOST_REQUIRE_EQUAL(u.owner, v.owner);
      std::pair key{static_cast<std::int32_t>(t), static_cast<std::int32_t>(i)};
      const auto& sa = a.result->parties.at(u.owner).splits.at(key);
      const auto& sb = b.result->parties.at(v.owner).splits.at(key);
      BOOST_TEST(sa.feature == sb.feature);
      BOOST_TEST(sa.threshold == sb.threshold);
    }
  }
  BOOST_TEST(splits > 0u);
  BOOST_TEST(a.result->margins.size() == d.rows());
  BOOST_REQUIRE_EQUAL(a.result->margins.size(), b.result->margins.size());
  for (std::size_t i = 0; i < d.rows(); ++i)
    BOOST_TEST(std::abs(a.result->margins[i] - b.result->margins[i]) < 1e-5);
  // Bytes are counted per client and type; feverless sends masked sums.
  for (const auto& c : a.result->parties) {
    BOOST_TEST(c.bytes.total_sent() > 0u);
    BOOST_TEST((std::find(c.bytes.types.begin(), c.bytes.types.end(),
                          "masked") != c.bytes.types.end()));
  }
  BOOST_TEST(!a.result->privacy.protected_sums);
}

BOOST_AUTO_TEST_CASE(split_tables_stay_on_their_clients_unless_asked_for) {
  // Spec §8.4: only the owner knows a split's feature and threshold. They
  // reach the coordinator only when it asks (--model-out).
  auto d = bank_sample(300);
  if (d.rows() == 0) {
    BOOST_TEST_MESSAGE("bank_marketing.csv.gz absent: skipped");
    return;
  }
  auto kept = run(d, fv::mode::plain, 3, false);
  BOOST_REQUIRE_MESSAGE(kept.ok(), kept.error);
  auto sent = run(d, fv::mode::plain, 3, true);
  BOOST_REQUIRE_MESSAGE(sent.ok(), sent.error);
  std::size_t exported = 0;
  for (std::size_t c = 0; c < 3; ++c) {
    BOOST_TEST(kept.result->parties[c].splits.empty());
    exported += sent.result->parties[c].splits.size();
  }
  BOOST_TEST(exported > 0u);
}

BOOST_AUTO_TEST_CASE(test_labels_go_to_the_coordinator_only) {
  // A client answers a labels request only from its session's coordinator
  // after training; before a roster, anyone asking gets an error.
  veil::test::actor_config cfg;
  caf::actor_system sys{cfg};
  auto client = actors::feverless_party_kind().spawn(sys, "c0", {});
  caf::scoped_actor stranger{sys};
  bool refused = false;
  stranger
      ->request(client, std::chrono::seconds(5),
                veil::messages::labels_atom::value)
      .receive([](veil::messages::fvl::eval_labels&) {},
               [&](caf::error& e) {
                 refused = actors::describe(e).find("coordinator") !=
                           std::string::npos;
               });
  BOOST_TEST(refused);
  caf::anon_send_exit(client, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(round_control_from_a_stranger_is_dropped) {
  // A client on a node obeys only the coordinator that asked for it: a
  // stranger's next-tree, stop or round prediction neither ends it nor
  // moves it (next-tree used to abort the client).
  veil::test::actor_config cfg;
  caf::actor_system sys{cfg};
  caf::scoped_actor coordinator{sys};
  auto catalog = std::make_shared<actors::node_catalog>();
  auto client = actors::feverless_party_kind().spawn(
      sys, "c0",
      actors::hosting{
          catalog,
          {},
          caf::actor_cast<caf::actor_addr>(coordinator->address())});
  coordinator->monitor(client);
  caf::scoped_actor stranger{sys};
  stranger->send(client, veil::messages::next_atom::value);
  stranger->send(client, veil::messages::stop_atom::value, std::int32_t{1});
  stranger->send(client, veil::messages::predict_atom::value, std::int32_t{0});
  bool ended = false;
  coordinator->receive([&](caf::down_msg&) { ended = true; },
                       caf::after(std::chrono::milliseconds(300)) >> [] {});
  BOOST_TEST(!ended);
  caf::anon_send_exit(client, caf::exit_reason::user_shutdown);
}

BOOST_AUTO_TEST_CASE(one_client_is_refused) {
  actors::feverless_config cfg;
  cfg.parties.resize(1);
  auto out = actors::feverless_session::run(std::move(cfg));
  BOOST_TEST(!out.ok());
  BOOST_TEST((out.code == protocols::session::errc::bad_input));
  BOOST_TEST(out.error.find("at least 2 clients") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE(live_session)

BOOST_AUTO_TEST_CASE(parties_stay_up_between_calls_and_predict_again) {
  // One session: train once, predict twice, keep parts... with the same
  // parties; the predictions equal the one-shot session's, bit for bit.
  auto d = bank_sample(300);
  if (d.rows() == 0) {
    BOOST_TEST_MESSAGE("bank_marketing.csv.gz absent: skipped");
    return;
  }
  auto once = run(d, fv::mode::feverless, 3, false);
  BOOST_REQUIRE_MESSAGE(once.ok(), once.error);
  actors::live_session<actors::feverless_protocol> s;
  protocols::session::progress_report last;
  s.on_progress(
      [&](const protocols::session::progress_report& p) { last = p; });
  BOOST_REQUIRE(s.open(deal(d, fv::mode::feverless, 3, false)));
  BOOST_REQUIRE(s.train());
  // Client 0 reports the trees as they are done, the last one included.
  BOOST_TEST(last.phase == "train");
  BOOST_TEST(last.total == 2);
  BOOST_TEST(last.done == 2);
  BOOST_REQUIRE(s.predict());
  auto first = s.result().margins;
  BOOST_REQUIRE(s.collect_stats());
  auto sent_after_one = s.result().parties[1].bytes.total_sent();
  BOOST_REQUIRE(s.predict());
  BOOST_REQUIRE(s.collect_stats());
  BOOST_TEST(s.result().margins == first);
  BOOST_TEST(first == once.result->margins);
  BOOST_TEST(s.result().predictions == 2u);
  // Client 1 answered client 0's queries a second time.
  BOOST_TEST(s.result().parties[1].bytes.total_sent() > sent_after_one);
  auto out = s.close();
  BOOST_REQUIRE_MESSAGE(out.ok(), out.error);
  BOOST_TEST(out.result->margins == first);
  // Closed: every later step is refused, and says so.
  BOOST_TEST(!s.ok());
  BOOST_TEST(!s.predict());
  auto again = s.close();
  BOOST_TEST(!again.ok());
  BOOST_TEST(again.error.find("closed") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_step_out_of_order_ends_the_session_with_its_reason) {
  auto d = bank_sample(120);
  if (d.rows() == 0) {
    BOOST_TEST_MESSAGE("bank_marketing.csv.gz absent: skipped");
    return;
  }
  actors::live_session<actors::feverless_protocol> s;
  BOOST_REQUIRE(s.open(deal(d, fv::mode::plain, 2, false)));
  BOOST_TEST(!s.predict());
  BOOST_TEST(!s.ok());
  BOOST_TEST(!s.train()); // the parties are gone
  auto out = s.close();
  BOOST_TEST(!out.ok());
  BOOST_TEST((out.code == protocols::session::errc::bad_request));
  BOOST_TEST(out.error.find("predict after training") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_handle_dropped_while_open_ends_its_parties) {
  auto d = bank_sample(120);
  if (d.rows() == 0) {
    BOOST_TEST_MESSAGE("bank_marketing.csv.gz absent: skipped");
    return;
  }
  {
    actors::live_session<actors::feverless_protocol> s;
    BOOST_REQUIRE(s.open(deal(d, fv::mode::plain, 2, false)));
    BOOST_REQUIRE(s.train());
  } // its actor system waits for every party: this returns only if they end
  BOOST_TEST(true);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()
