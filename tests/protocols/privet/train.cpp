// Privet's secure training against its plaintext reference (spec privet
// §8.4 item 12): on synthetic classification and regression data, at 3
// and 4 parties, the secure run picks the reference's features (every
// level's choice scores within 1e-4 of the best in the clear), its
// leaves match the approximation-aware reference's, and secure inference
// of new rows gives the reference's scores.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <numeric>
#include <random>

#include "learners/table/decision_tables.hpp"
#include "protocols/mpc/local_network.hpp"
#include "protocols/privet/train.hpp"
#include "tests/protocols/privet/support.hpp"

namespace mpc = veil::protocols::mpc;
namespace pv = veil::protocols::privet;
namespace learners = veil::learners;
using veil::test::privet::deal;

namespace {

/// n rows, 6 features; binary: y = [x0 + x1² + noise > 0.6]; regression:
/// y = x0 − 2 x2 + noise.
learners::dataset synthetic(std::size_t n, bool binary, std::uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> z(0, 1);
  learners::dataset d(n, {"a", "b", "c", "d", "e", "f"});
  d.labels().resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < 6; ++j)
      d.value(i, j) = static_cast<float>(std::round(z(g) * 100) / 100);
    double x0 = d.value(i, 0), x1 = d.value(i, 1), x2 = d.value(i, 2);
    d.labels()[i] = binary ? (x0 + x1 * x1 + 0.3 * z(g) > 0.6 ? 1.0f : 0.0f)
                           : static_cast<float>(x0 - 2 * x2 + 0.1 * z(g));
  }
  return d;
}

struct secure_run {
  std::vector<pv::party_model> models;
  std::vector<double> test_scores;
};

secure_run train_secure(const learners::dataset& train,
                        const learners::dataset& test, const pv::params& p,
                        int parties) {
  auto tr = deal(train, parties), te = deal(test, parties);
  mpc::local_network net(parties, 21);
  secure_run out;
  std::vector<pv::party_model> models(static_cast<std::size_t>(parties));
  auto scores =
      net.run<mpc::words>([&](mpc::party& self) -> mpc::task<mpc::words> {
        auto me = static_cast<std::size_t>(self.id());
        auto m = co_await pv::train(self, p, tr.map, tr.parts[me]);
        models[me] = m;
        auto s = co_await pv::infer(self, m, te.map, te.parts[me], p.depth);
        co_return co_await self.open(std::move(s));
      });
  out.models = std::move(models);
  out.test_scores = mpc::decode_all(scores[0]);
  return out;
}

void compare(bool binary, int parties) {
  auto train = synthetic(300, binary, 5), test = synthetic(100, binary, 6);
  pv::params p;
  p.task =
      binary ? learners::table_task::binary : learners::table_task::regression;
  p.tables = 3;
  p.depth = 3;
  p.buckets = 8;
  p.gradient_bound = binary ? 1 : 20;
  auto secure = train_secure(train, test, p, parties);
  auto ref =
      learners::train_tables(train, pv::approximation_aware(p, train.rows()));
  const auto& m0 = secure.models[0];
  BOOST_REQUIRE_EQUAL(m0.tables.size(), ref.tables.size());
  bool same = true;
  for (std::size_t t = 0; t < ref.tables.size(); ++t)
    for (std::size_t d = 0; d < ref.tables[t].tests.size(); ++d) {
      same = same && m0.tables[t].features[d] == ref.tables[t].tests[d].feature;
      // Only the owner knows the threshold; it is the reference's.
      auto F = static_cast<std::size_t>(m0.tables[t].features[d]);
      auto owner = static_cast<std::size_t>(
          pv::column_map::blocks(train.features(), parties).owner[F]);
      for (std::size_t q = 0; q < secure.models.size(); ++q)
        BOOST_TEST(secure.models[q].tables[t].thresholds[d].has_value() ==
                   (q == owner));
      if (same)
        BOOST_TEST(*secure.models[owner].tables[t].thresholds[d] ==
                   ref.tables[t].tests[d].threshold);
    }
  BOOST_TEST_REQUIRE(same, "the secure run chose other features than the "
                           "reference (binary "
                               << binary << ", " << parties << " parties)");
  // Leaves: the parties' shares add up to the reference's (fixed point:
  // a few ulps per operation, 1e-3 relative to the largest).
  for (std::size_t t = 0; t < ref.tables.size(); ++t)
    for (std::size_t k = 0; k < ref.tables[t].leaves.size(); ++k) {
      mpc::word sum = 0;
      for (const auto& m : secure.models)
        sum += m.tables[t].leaves[k];
      BOOST_TEST(std::abs(mpc::decode(sum) - ref.tables[t].leaves[k]) < 1e-3,
                 "table " << t << " leaf " << k);
    }
  auto want = ref.predict(test);
  for (std::size_t i = 0; i < want.size(); ++i)
    BOOST_TEST(std::abs(secure.test_scores[i] - want[i]) < 3e-3);
}

} // namespace

BOOST_AUTO_TEST_SUITE(privet)
BOOST_AUTO_TEST_SUITE(train)

BOOST_AUTO_TEST_CASE(binary_classification_matches_the_reference) {
  compare(true, 3);
  compare(true, 4);
}

BOOST_AUTO_TEST_CASE(regression_matches_the_reference) {
  compare(false, 3);
}

// spec §5.3's hidden-γ option: the same model (every party's leaf shares
// bit for bit, the same thresholds at the owners), and what is opened
// shrinks exactly by each level's J per-feature indices to everyone,
// replaced by one index to one owner: n(n−1)J − (n−1) words a level.
BOOST_AUTO_TEST_CASE(hidden_buckets_give_the_same_model_and_open_less) {
  const int n = 3;
  auto train = synthetic(150, true, 8);
  auto tr = deal(train, n);
  pv::params p;
  p.tables = 2;
  p.depth = 2;
  p.buckets = 4;
  auto run = [&](bool hide, mpc::traffic& t) {
    p.hide_buckets = hide;
    mpc::local_network net(n, 9);
    std::vector<pv::party_model> models(n);
    net.run<int>([&](mpc::party& self) -> mpc::task<int> {
      auto me = static_cast<std::size_t>(self.id());
      models[me] = co_await pv::train(self, p, tr.map, tr.parts[me]);
      co_return 0;
    });
    t = net.traffic();
    return models;
  };
  mpc::traffic open_t, hidden_t;
  auto open = run(false, open_t);
  auto hidden = run(true, hidden_t);
  for (int q = 0; q < n; ++q)
    for (std::size_t t = 0; t < open[0].tables.size(); ++t) {
      BOOST_TEST(hidden[q].tables[t].leaves == open[q].tables[t].leaves);
      BOOST_TEST(hidden[q].tables[t].thresholds ==
                 open[q].tables[t].thresholds);
    }
  const std::uint64_t levels = 2 * 2, J = 6;
  BOOST_TEST(open_t.words - hidden_t.words ==
             levels * (n * (n - 1) * J - (n - 1)));
  BOOST_TEST(open_t.rounds == hidden_t.rounds); // one opening for another
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
