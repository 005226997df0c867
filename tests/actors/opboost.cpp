// OpBoost in the actor runtime: every wire message survives CAF's binary
// serializer (alone and type-erased), and a session of party actors with
// the identity mechanism on Adult trains the model centralized training on
// the pre-processed data trains, and predicts privately what it predicts.
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
#include <caf/make_message.hpp>
#include <caf/message.hpp>

#include "actors/live_session.hpp"
#include "actors/opboost_session.hpp"
#include "learners/boost/booster.hpp"
#include "learners/data/csv_reader.hpp"
#include "learners/data/synthetic.hpp"
#include "messages/opboost.hpp"
#include "messages/register.hpp"
#include "messages/type_ids.hpp"
#include "protocols/opboost/privacy.hpp"
#include "tests/actors/round_trip.hpp"

using namespace veil;
namespace op = veil::protocols::opboost;

namespace {

using op_fixture = veil::test::round_trip_fixture;

learners::dataset pick_columns(const learners::dataset& d,
                               const std::vector<std::size_t>& cols,
                               bool labels) {
  auto part = d.select_columns(cols);
  if (!labels)
    part.labels().clear();
  return part;
}

learners::dataset pick_rows(const learners::dataset& d, std::size_t lo,
                            std::size_t hi) {
  std::vector<std::size_t> rows(hi - lo);
  std::iota(rows.begin(), rows.end(), lo);
  return d.select_rows(rows);
}

/// Party A's columns, then every Party B's columns pre-processed into D⊥
/// with its maps: what the protocol's model sees, centralized.
learners::dataset centralized(const actors::opboost_config& cfg, bool eval) {
  std::vector<std::string> names;
  for (const auto& p : cfg.parties) {
    const auto& d = eval ? p.eval : p.features;
    names.insert(names.end(), d.feature_names().begin(),
                 d.feature_names().end());
  }
  const auto& a = eval ? cfg.parties[0].eval : cfg.parties[0].features;
  learners::dataset out(a.rows(), names);
  if (!eval)
    out.labels() = a.labels();
  std::size_t col = 0;
  for (std::size_t q = 0; q < cfg.parties.size(); ++q) {
    const auto& p = cfg.parties[q];
    const auto& d = eval ? p.eval : p.features;
    for (std::size_t j = 0; j < d.features(); ++j, ++col) {
      if (q == 0) {
        std::copy(d.column(j).begin(), d.column(j).end(),
                  out.column(col).begin());
        continue;
      }
      auto mapped = op::map_column(p.maps[j], cfg.params.dom, d.column(j));
      for (std::size_t i = 0; i < mapped.size(); ++i)
        out.column(col)[i] = static_cast<float>(mapped[i]);
    }
  }
  return out;
}

/// Party A gets `a_names` (with the labels), parties - 1 Party B users the
/// other columns in contiguous blocks, their bounds fitted to the training
/// rows; eval = the other rows.
actors::opboost_config deal(const learners::dataset& train_set,
                            const learners::dataset& test_set,
                            const std::vector<std::string>& a_names,
                            std::size_t parties, op::params p) {
  std::vector<std::size_t> a_cols, rest;
  for (const auto& name : a_names)
    a_cols.push_back(static_cast<std::size_t>(train_set.feature_index(name)));
  for (std::size_t j = 0; j < train_set.features(); ++j)
    if (std::find(a_cols.begin(), a_cols.end(), j) == a_cols.end())
      rest.push_back(j);
  actors::opboost_config cfg;
  cfg.params = p;
  cfg.test_seed = 7;
  actors::opboost_party_spec a;
  a.name = "A";
  a.features = pick_columns(train_set, a_cols, true);
  a.eval = pick_columns(test_set, a_cols, false);
  cfg.parties.push_back(std::move(a));
  auto m = parties - 1;
  for (std::size_t q = 0; q < m; ++q) {
    std::vector<std::size_t> mine(rest.begin() + rest.size() * q / m,
                                  rest.begin() + rest.size() * (q + 1) / m);
    actors::opboost_party_spec b;
    b.name = "B" + std::to_string(q + 1);
    b.features = pick_columns(train_set, mine, false);
    b.eval = pick_columns(test_set, mine, false);
    for (std::size_t j = 0; j < b.features.features(); ++j)
      b.maps.push_back(op::fit_bounds(b.features.column(j)));
    cfg.parties.push_back(std::move(b));
  }
  return cfg;
}

} // namespace

BOOST_AUTO_TEST_SUITE(opboost)

BOOST_FIXTURE_TEST_CASE(every_wire_struct_round_trips, op_fixture) {
  auto nan = std::numeric_limits<double>::quiet_NaN();
  auto inf = std::numeric_limits<double>::infinity();
  op::schema s{10,        {"age", "fnlwgt"}, {0, 0}, {17, -0.0},
               {90, inf}, {nan, 3.5},        -4,     1000};
  auto s2 = round_trip(s);
  BOOST_TEST(s2.names == s.names);
  BOOST_TEST(s2.kinds == s.kinds);
  BOOST_TEST(s2.lower[0] == 17);
  BOOST_TEST(std::signbit(s2.lower[1]));
  BOOST_TEST(s2.upper[1] == inf);
  BOOST_TEST(std::isnan(s2.fill[0]));
  BOOST_TEST(s2.fill[1] == 3.5);
  BOOST_TEST(s2.domain_lo == -4);
  BOOST_TEST(s2.domain_hi == 1000);
  BOOST_TEST(s2.rows == 10u);

  op::ranks r{3, {0, 2, 1, -1, 5, 7}};
  BOOST_TEST(round_trip(r).values == r.values);
  op::split_request q{{0, 2, 3}, {1, 4, 2}};
  auto q2 = round_trip(q);
  BOOST_TEST(q2.offsets == q.offsets);
  BOOST_TEST(q2.ranks == q.ranks);
  op::split_values v{{1.5, nan, -inf}};
  auto v2 = round_trip(v);
  BOOST_TEST(v2.values[0] == 1.5);
  BOOST_TEST(std::isnan(v2.values[1]));
  BOOST_TEST(v2.values[2] == -inf);
  op::predict_request pr{4, 99};
  auto pr2 = round_trip(pr);
  BOOST_TEST(pr2.batch == 4u);
  BOOST_TEST(pr2.rows == 99u);
  op::predict_values pv{4, 2, {1, 2, nan, 4}};
  auto pv2 = round_trip(pv);
  BOOST_TEST(pv2.rows == 2u);
  BOOST_TEST(std::isnan(pv2.values[2]));
  op::failure f{"M1 ranks", "not dense"};
  BOOST_TEST(round_trip(f).reason == f.reason);

  veil::messages::opl::roster_settings ro;
  // Every setting crosses the wire, the booster's too.
  ro.params.dom = {-3, 40};
  ro.params.mechanism.kind = op::mechanism_kind::adj_map;
  ro.params.mechanism.sampler = op::sampler_kind::discrete_laplace;
  ro.params.mechanism.epsilon = 0.08;
  ro.params.mechanism.theta = 7;
  ro.params.mechanism.alpha = 0.5;
  ro.params.mechanism.dsize = op::dsize_rule::range_width;
  ro.params.mechanism.layout = op::partition_layout::reference;
  ro.params.budget = op::budget_split::split;
  ro.params.learner = op::learner_kind::gbdt;
  ro.params.threshold = op::threshold_rule::upper;
  ro.params.booster.rounds = 17;
  ro.params.booster.tree.eta = 0.3;
  ro.bound_columns = {"age", "hours"};
  ro.bound_lower = {17, 1};
  ro.bound_upper = {90, 99.5};
  // They travel packed in the one roster of every protocol.
  protocols::session::roster base{1,  {"A", "B1"}, 1500,
                                  {}, 0,           veil::messages::pack(ro)};
  auto base2 = round_trip(base);
  BOOST_TEST(base2.names == base.names);
  BOOST_TEST(base2.timeout_ms == 1500);
  veil::messages::opl::roster_settings ro2;
  BOOST_REQUIRE(veil::messages::unpack(base2.settings, ro2));
  BOOST_TEST((ro2.params.dom == ro.params.dom));
  BOOST_TEST((ro2.params.mechanism.kind == op::mechanism_kind::adj_map));
  BOOST_TEST((ro2.params.mechanism.sampler == ro.params.mechanism.sampler));
  BOOST_TEST(ro2.params.mechanism.epsilon == 0.08);
  BOOST_TEST(ro2.params.mechanism.theta == 7);
  BOOST_TEST(ro2.params.mechanism.alpha == 0.5);
  BOOST_TEST((ro2.params.mechanism.dsize == op::dsize_rule::range_width));
  BOOST_TEST((ro2.params.mechanism.layout == op::partition_layout::reference));
  BOOST_TEST((ro2.params.budget == op::budget_split::split));
  BOOST_TEST((ro2.params.learner == op::learner_kind::gbdt));
  BOOST_TEST((ro2.params.threshold == op::threshold_rule::upper));
  BOOST_TEST(ro2.params.booster.rounds == 17);
  BOOST_TEST(ro2.params.booster.tree.eta == 0.3);
  BOOST_TEST(ro2.bound_columns == ro.bound_columns);
  BOOST_TEST(ro2.bound_lower == ro.bound_lower);
  BOOST_TEST(ro2.bound_upper == ro.bound_upper);
  op::training_report t;
  t.report = "report";
  t.what = {"party 1 / age"};
  t.mechanism = {"global-map/exponential"};
  t.kinds = {2};
  t.epsilon = {0.08};
  t.epsilon_prt = {0};
  t.epsilon_ner = {0};
  t.theta = {4};
  protocols::session::trained sent;
  sent.seconds = nan;
  sent.report = veil::messages::pack(t);
  auto got = round_trip(sent);
  BOOST_TEST(std::isnan(got.seconds));
  op::training_report t2;
  BOOST_REQUIRE(veil::messages::unpack(got.report, t2));
  BOOST_TEST(t2.epsilon == t.epsilon);
  BOOST_TEST(t2.what == t.what);
  BOOST_TEST(t2.theta == t.theta);
  protocols::session::predicted p{{0.5, -1}, 2, {}, {}, {1, 0}, 0, {}};
  auto p2 = round_trip(p);
  BOOST_TEST(p2.margins == p.margins);
  BOOST_TEST(p2.labels == p.labels);
}

BOOST_AUTO_TEST_CASE(identity_session_on_adult_equals_centralized) {
  // Party A holds the label and the categorical columns, two Party B users
  // the numeric ones; with the identity mechanism the model is centralized
  // training on the pre-processed data, node for node (threshold rule
  // upper), and the private prediction is its prediction.
  auto path = std::string(VEIL_SHARED_DIR) + "/datasets/adult_train.csv.gz";
  if (!std::filesystem::exists(path)) {
    BOOST_TEST_MESSAGE("skipped: no " << path);
    return;
  }
  learners::read_options o;
  o.label = "label";
  auto d = learners::read_csv(path, o);
  auto train_set = pick_rows(d, 0, 26000);
  auto test_set = pick_rows(d, 26000, d.rows());
  op::params p;
  p.mechanism.kind = op::mechanism_kind::identity;
  p.threshold = op::threshold_rule::upper;
  p.booster.rounds = 10;
  auto cfg = deal(train_set, test_set,
                  {"workclass", "education", "marital_status", "occupation",
                   "relationship", "race", "sex", "native_country"},
                  3, p);
  BOOST_REQUIRE_EQUAL(cfg.parties[1].features.feature_names()[0], "age");
  auto central_train = centralized(cfg, false);
  auto central_test = centralized(cfg, true);
  auto central = learners::train(central_train, nullptr, p.booster).model;
  auto out = actors::opboost_session::run(cfg);
  BOOST_REQUIRE_MESSAGE(out.ok(), out.error);
  const auto& r = *out.result;
  const auto& got = r.model;
  BOOST_REQUIRE_EQUAL(got.trees.size(), central.trees.size());
  BOOST_TEST(got.feature_names == central.feature_names);
  for (std::size_t t = 0; t < got.trees.size(); ++t) {
    const auto& a = got.trees[t].nodes;
    const auto& b = central.trees[t].nodes;
    BOOST_REQUIRE_EQUAL(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      BOOST_REQUIRE_EQUAL(a[i].is_leaf(), b[i].is_leaf());
      BOOST_TEST(a[i].value == b[i].value);
      if (!a[i].is_leaf()) {
        BOOST_TEST(a[i].feature == b[i].feature);
        BOOST_TEST(a[i].threshold == b[i].threshold);
      }
    }
  }
  BOOST_TEST(r.splits > 0u);
  BOOST_TEST(r.margins == central.predict_margin(central_test));
  BOOST_TEST(r.margins.size() == test_set.rows());
  // Bytes per party and type: Party B sends M0, M1, M3 and M4 only.
  BOOST_REQUIRE_EQUAL(r.parties.size(), 3u);
  for (std::size_t q = 1; q < 3; ++q) {
    const auto& b = r.parties[q].bytes;
    std::vector<std::string> sent;
    for (std::size_t k = 0; k < b.types.size(); ++k)
      if (b.sent[k] > 0)
        sent.push_back(b.types[k]);
    BOOST_TEST((sent == std::vector<std::string>{"M0 schema", "M1 ranks",
                                                 "M3 split_values",
                                                 "M4 predict_values"}));
  }
  BOOST_TEST(r.spent.any_unprotected());
  BOOST_TEST(r.spent.entries().size() == 6u);
  BOOST_TEST(r.privacy_report.find("NO protection") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(noisy_session_reports_its_budget) {
  learners::classification_spec s;
  s.rows = 600;
  s.features = 6;
  s.informative = 3;
  s.redundant = 1;
  s.seed = 3;
  auto d = learners::make_classification(s);
  op::params p;
  p.mechanism.kind = op::mechanism_kind::adj_map;
  p.mechanism.epsilon = 0.5;
  p.booster.rounds = 4;
  auto cfg = deal(pick_rows(d, 0, 500), pick_rows(d, 500, 600), {"f0"}, 3, p);
  auto out = actors::opboost_session::run(cfg);
  BOOST_REQUIRE_MESSAGE(out.ok(), out.error);
  const auto& r = *out.result;
  BOOST_TEST(r.model.trees.size() == 4u);
  BOOST_TEST(r.margins.size() == 100u);
  BOOST_TEST(r.spent.entries().size() == 5u);
  BOOST_TEST(!r.spent.any_unprotected());
  BOOST_TEST(r.privacy_report.find(op::partition_budget_note) !=
             std::string::npos);
}

BOOST_AUTO_TEST_CASE(one_party_is_refused) {
  actors::opboost_config cfg;
  cfg.parties.resize(1);
  auto out = actors::opboost_session::run(std::move(cfg));
  BOOST_TEST(!out.ok());
  BOOST_TEST((out.code == protocols::session::errc::bad_input));
  BOOST_TEST(out.error.find("at least 2 parties") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_live_session_predicts_privately_with_fresh_noise) {
  // Parties stay up after training; each private prediction has every
  // Party B desensitize the rows afresh (so the margins differ), and the
  // session counts the predictions: each spends the rows' budget again.
  learners::classification_spec s;
  s.rows = 400;
  s.features = 6;
  s.informative = 3;
  s.redundant = 1;
  s.seed = 4;
  auto d = learners::make_classification(s);
  op::params p;
  p.mechanism.kind = op::mechanism_kind::adj_map;
  p.mechanism.epsilon = 0.5;
  p.booster.rounds = 3;
  auto cfg = deal(pick_rows(d, 0, 300), pick_rows(d, 300, 400), {"f0"}, 3, p);
  actors::live_session<actors::opboost_protocol> live;
  BOOST_REQUIRE(live.open(std::move(cfg)));
  BOOST_REQUIRE(live.train());
  BOOST_REQUIRE(live.predict());
  auto first = live.result().margins;
  BOOST_REQUIRE(live.predict());
  BOOST_TEST(live.result().margins.size() == 100u);
  BOOST_TEST(live.result().margins != first);
  BOOST_TEST(live.result().predictions == 2u);
  BOOST_TEST(live.result().privacy_report.find(
                 "each private prediction spends") != std::string::npos);
  auto out = live.close();
  BOOST_REQUIRE_MESSAGE(out.ok(), out.error);
}

BOOST_AUTO_TEST_SUITE_END()
