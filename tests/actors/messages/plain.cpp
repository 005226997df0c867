// Every message that crosses an actor boundary survives a round trip
// through CAF's binary serializer: alone (its inspect overload) and inside a
// caf::message (the registered, type-erased path that BASP takes between
// nodes, with the names of messages/type_ids.hpp).
#include "tests/actors/round_trip.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "messages/plain.hpp"
#include "messages/session.hpp"

using namespace veil;
namespace wire = veil::protocols::plain;
namespace session = veil::protocols::session;

namespace {

using fixture = veil::test::round_trip_fixture;

template <class T>
void check_name(const char* expected) {
  BOOST_TEST(std::string(caf::type_name<T>::value) == expected);
}

} // namespace

BOOST_AUTO_TEST_SUITE(messages)
BOOST_FIXTURE_TEST_SUITE(plain, fixture)

BOOST_AUTO_TEST_CASE(every_wire_struct_round_trips) {
  auto s = round_trip(wire::setup{128, 3, {}, 0, {}});
  BOOST_TEST(s.max_bin == 128);
  BOOST_TEST(s.threads == 3);

  auto sd = round_trip(wire::setup_done{{2, 256, 17}});
  BOOST_TEST(sd.bins_per_feature == (std::vector<std::int32_t>{2, 256, 17}));

  wire::tree_start ts{4, {{0.5f, 0.25f}, {-1.5f, 0.125f}}};
  auto ts2 = round_trip(ts);
  BOOST_TEST(ts2.tree == 4);
  BOOST_REQUIRE_EQUAL(ts2.grads.size(), 2u);
  BOOST_TEST(ts2.grads[1].g == -1.5f);
  BOOST_TEST(ts2.grads[1].h == 0.125f);

  // Nested vectors of structs.
  wire::level_request lr;
  lr.tree = 2;
  lr.depth = 3;
  lr.splits = {{5, 11, 12, {0xff, 0x01}}, {6, 13, 14, {}}, {7, 15, 16, {0x5a}}};
  lr.build = {11, 13, 16};
  lr.last = true;
  auto lr2 = round_trip(lr);
  BOOST_REQUIRE_EQUAL(lr2.splits.size(), 3u);
  BOOST_TEST(lr2.splits[0].goes_left_bits ==
             (std::vector<std::uint8_t>{0xff, 0x01}));
  BOOST_TEST(lr2.splits[1].goes_left_bits.empty());
  BOOST_TEST(lr2.splits[2].right == 16);
  BOOST_TEST(lr2.build == lr.build);
  BOOST_TEST(lr2.last);

  wire::histograms h{1, 2, {3, 4}, {{1.5, 2.5}, {-3.0, 4e-300}}};
  auto h2 = round_trip(h);
  BOOST_TEST(h2.nodes == h.nodes);
  BOOST_TEST((h2.sums == h.sums));

  wire::split_query q{1, 2, {3, 4}, {0, 5}, {17, 255}, {1, 0}};
  auto q2 = round_trip(q);
  BOOST_TEST(q2.features == q.features);
  BOOST_TEST(q2.bins == q.bins);
  BOOST_TEST(q2.default_left == q.default_left);

  auto a = round_trip(wire::split_answer{1, 2, {3}, {0x0f, 0xf0}});
  BOOST_TEST(a.goes_left_bits == (std::vector<std::uint8_t>{0x0f, 0xf0}));

  wire::predict_query pq{
      2, {0, 0, 9}, {1, 2, 1}, {0, 2, 3, 5}, {7, 8, 1, 2, 3}};
  auto pq2 = round_trip(pq);
  BOOST_TEST(pq2.offsets == pq.offsets);
  BOOST_TEST(pq2.rows == pq.rows);

  auto pa = round_trip(wire::predict_answer{3, {0xaa}});
  BOOST_TEST(pa.depth == 3);

  auto f = round_trip(wire::failure{"histograms", "wrong size"});
  BOOST_TEST(f.reason == "wrong size");
}

BOOST_AUTO_TEST_CASE(empty_structs_round_trip) {
  round_trip(wire::setup_done{});
  round_trip(wire::tree_start{});
  round_trip(wire::level_request{});
  round_trip(wire::histograms{});
  round_trip(wire::split_query{});
  round_trip(wire::split_answer{});
  round_trip(wire::predict_query{});
  round_trip(wire::predict_answer{});
  round_trip(wire::failure{});
}

BOOST_AUTO_TEST_CASE(session_structs_round_trip) {
  session::load_request lr{true, false, {"a.csv", "id", {"x", "y"}, "label"}};
  auto lr2 = round_trip(lr);
  BOOST_TEST(lr2.data.feature_columns == lr.data.feature_columns);
  BOOST_TEST(lr2.data.label_column == "label");

  auto ds = round_trip(session::data_summary{3, {"x", "y"}, true, {"a", "b"}});
  BOOST_TEST(ds.ids == (std::vector<std::string>{"a", "b"}));

  round_trip(session::align_request{true, {2, 0, 1}});
  auto r =
      round_trip(session::roster{1, {"p0", "p1"}, 1500, {0.25, 10}, -1, {}});
  BOOST_TEST(r.timeout_ms == 1500);
  BOOST_TEST(r.link.latency_ms == 0.25);
  BOOST_TEST(r.link.bandwidth_mbps == 10.0);

  // Plain's roster settings are the booster's, packed into the roster.
  struct {
    learners::booster_params params;
  } tr, tr2;
  tr.params.rounds = 17;
  tr.params.tree.max_depth = 4;
  tr.params.tree.oblivious = true;
  tr.params.tree.max_delta_step = 0.625;
  tr.params.objective = learners::objective_kind::multi_softmax;
  tr.params.num_class = 3;
  auto packed = round_trip(session::roster{
      -1, {"p0", "p1"}, 1500, {}, 0, veil::messages::pack(tr.params)});
  BOOST_REQUIRE(veil::messages::unpack(packed.settings, tr2.params));
  BOOST_TEST(tr2.params.rounds == 17);
  BOOST_TEST(tr2.params.tree.max_depth == 4);
  BOOST_TEST(tr2.params.tree.oblivious);
  BOOST_TEST(tr2.params.tree.max_delta_step == 0.625);
  BOOST_TEST((tr2.params.objective == learners::objective_kind::multi_softmax));
  BOOST_TEST(std::isnan(tr2.params.base_score));

  session::trained out;
  out.model.feature_names = {"a", "party1:0"};
  out.model.base_margin = {-0.5};
  learners::regression_tree t;
  t.nodes.resize(3);
  t.nodes[0].left = 1;
  t.nodes[0].right = 2;
  t.nodes[0].feature = 1;
  t.nodes[0].owner = 1;
  t.nodes[0].threshold = std::numeric_limits<float>::quiet_NaN();
  t.nodes[1].value = 0.25f;
  t.nodes[2].value = -0.125f;
  out.model.trees = {t, t};
  out.seconds = 1.5;
  out.own_splits = 3;
  out.history = {{1, {"auc", "logloss"}, {0.8, 0.5}}, {2, {"auc"}, {0.9}}};
  out.early_stop = {4, true, 9, 5, "auc", 0.91};
  auto out2 = round_trip(out);
  BOOST_REQUIRE_EQUAL(out2.history.size(), 2u);
  BOOST_TEST(out2.history[0].names == out.history[0].names);
  BOOST_TEST(out2.history[0].values == out.history[0].values);
  BOOST_TEST(out2.history[1].round == 2);
  BOOST_TEST(out2.early_stop.stopped);
  BOOST_TEST(out2.early_stop.best_round == 5);
  BOOST_TEST(out2.early_stop.metric == "auc");
  BOOST_TEST(out2.early_stop.best_score == 0.91);
  BOOST_REQUIRE_EQUAL(out2.model.trees.size(), 2u);
  BOOST_TEST(out2.model.trees[1].nodes[2].value == -0.125f);
  BOOST_TEST(out2.model.trees[0].nodes[0].owner == 1);
  BOOST_TEST(out2.model.feature_names == out.model.feature_names);
  // A passive party's split has a NaN threshold in the model.
  BOOST_TEST(std::isnan(out2.model.trees[0].nodes[0].threshold));
  BOOST_TEST(out2.model.base_margin == out.model.base_margin);

  auto p = round_trip(
      session::predicted{{0.5, -1}, 0.1, {"auc"}, {0.75}, {}, 2, {0.25f, 1}});
  BOOST_TEST(p.staged_stride == 2u);
  BOOST_TEST(p.staged == (std::vector<float>{0.25f, 1}));
  BOOST_TEST(p.margins == (std::vector<double>{0.5, -1}));
  round_trip(session::split_export{"p1", {{0, 0, "age", 37.5f, true}}});
  auto b = round_trip(session::byte_stats{
      "p1", {"histograms"}, {10}, {20}, {0}, {10}, {1}, 0.5});
  BOOST_TEST(b.total_received() == 20u);
  BOOST_TEST(b.link_turns == (std::vector<std::uint64_t>{1}));
  BOOST_TEST(b.busy_seconds == 0.5);
  session::progress_report pr;
  pr.phase = "train";
  pr.done = 3;
  pr.total = 10;
  pr.metric_names = {"auc"};
  pr.metric_values = {0.75};
  pr.bytes = 123456;
  auto pr2 = round_trip(pr);
  BOOST_TEST(pr2.metric_values == pr.metric_values);
  BOOST_TEST(pr2.bytes == 123456u);
}

BOOST_AUTO_TEST_CASE(registered_names_are_namespaced) {
  check_name<wire::histograms>("veil::protocols::plain::histograms");
  check_name<wire::level_request>("veil::protocols::plain::level_request");
  check_name<session::progress_report>(
      "veil::protocols::session::progress_report");
}

BOOST_AUTO_TEST_CASE(session_errors_render_their_message) {
  auto err =
      caf::make_error(session::errc::party_down, std::string("p2 ended"));
  auto text = sys.render(err);
  BOOST_TEST(text.find("p2 ended") != std::string::npos, text);
  BOOST_TEST(text.find("party_down") != std::string::npos, text);
}

// MaskedXGBoost's and its baselines' messages, doubles bit for bit, and
// the roster settings that carry their parameters.
BOOST_AUTO_TEST_CASE(masked_exchange_structs_round_trip) {
  wire::noise_matrices nm{3, 2, {5, 6}, {2, 1}, {1, 1, 1}, {0.1, -2.5e7, 3}};
  auto nm2 = round_trip(nm);
  BOOST_TEST(nm2.nodes == nm.nodes);
  BOOST_TEST(nm2.candidates == nm.candidates);
  BOOST_TEST(nm2.left_counts == nm.left_counts);
  BOOST_TEST(nm2.noise == nm.noise);
  wire::masked_sums ms{3, 2, {5}, {1.5, 2.25}, {1e-300, -0.0, 7}};
  auto ms2 = round_trip(ms);
  BOOST_TEST(ms2.sums == ms.sums);
  BOOST_TEST(ms2.masked == ms.masked);
  auto ps = round_trip(wire::passive_scores{
      1, 0, {0}, {-std::numeric_limits<double>::infinity()}});
  BOOST_TEST(std::isinf(ps.gains[0]));
  BOOST_TEST(round_trip(wire::scored_split_query{1, 4, {9, 10}}).nodes ==
             (std::vector<std::int32_t>{9, 10}));
  auto ng = round_trip(wire::noisy_gradients{7, {0.5, -0.25}, {}});
  BOOST_TEST(ng.g == (std::vector<double>{0.5, -0.25}));
  BOOST_TEST(ng.h.empty());
  auto bi = round_trip(wire::bucket_ids{{3, 33}, {0, 1, 2, 32, 0, 5}});
  BOOST_TEST(bi.ids == (std::vector<std::uint16_t>{0, 1, 2, 32, 0, 5}));
  auto bs = round_trip(wire::bucket_splits{2, {1}, {0}, {3.5f}});
  BOOST_TEST(bs.thresholds == std::vector<float>{3.5f});
  wire::roster_settings rs;
  rs.exchange = wire::exchange::masked;
  rs.masking.epsilon_pp = 3;
  rs.masking.w = 2;
  rs.masking.accounting = protocols::masked::accounting::strict;
  rs.masking.seed = 99;
  std::vector<std::uint8_t> packed = veil::messages::pack(rs);
  wire::roster_settings back;
  BOOST_REQUIRE(veil::messages::unpack(packed, back));
  BOOST_TEST((back.exchange == wire::exchange::masked));
  BOOST_TEST(back.masking.epsilon_pp == 3);
  BOOST_TEST(back.masking.w == 2);
  BOOST_TEST(
      (back.masking.accounting == protocols::masked::accounting::strict));
  BOOST_TEST(back.masking.seed == 99u);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
