// A FEVERLESS client's data (protocols/feverless/data.hpp): one table dealt
// as spec feverless §14.1 deals it (contiguous column blocks, each row's
// label on exactly one client, the label counts within one of each
// other), the split table a training report carries, and the settings'
// hessian-noise warning.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <limits>
#include <set>

#include "learners/input_error.hpp"
#include "protocols/feverless/data.hpp"
#include "protocols/feverless/settings.hpp"
#include "tests/support/random_data.hpp"

using namespace veil;
namespace fv = veil::protocols::feverless;

namespace {

/// `rows` x `features` (f0, f1, ...), cell (i, j) = 100 j + i.
learners::dataset table(std::size_t rows, std::size_t features) {
  return test::counting_table(rows, test::feature_names(features), 100);
}

} // namespace

BOOST_AUTO_TEST_SUITE(feverless)
BOOST_AUTO_TEST_SUITE(data)

BOOST_AUTO_TEST_CASE(a_dealt_table_gives_each_row_one_label_holder) {
  auto d = table(101, 7);
  auto clients = fv::deal_table(d, d, 3, 42, "t.csv");
  BOOST_REQUIRE_EQUAL(clients.size(), 3u);
  std::vector<std::string> columns;
  std::set<std::uint32_t> labelled;
  for (const auto& c : clients) {
    BOOST_TEST(!c.features.has_labels());
    BOOST_TEST(!c.eval.has_labels());
    BOOST_TEST(c.features.features() >= 2u); // 7 over 3: 2, 2, 3
    for (const auto& n : c.features.feature_names())
      columns.push_back(n);
    // 101 rows over 3 clients: 33 or 34 each.
    BOOST_TEST((c.labels.rows.size() == 33u || c.labels.rows.size() == 34u));
    for (std::size_t k = 0; k < c.labels.rows.size(); ++k) {
      auto i = c.labels.rows[k];
      BOOST_TEST(labelled.insert(i).second); // no row twice
      BOOST_TEST(c.labels.labels[k] == static_cast<float>(i % 2));
    }
  }
  BOOST_TEST(labelled.size() == 101u);
  BOOST_TEST(columns == d.feature_names()); // contiguous, in order
  // Another seed spreads the labels differently; the same seed the same.
  auto again = fv::deal_table(d, d, 3, 42, "t.csv");
  auto other = fv::deal_table(d, d, 3, 43, "t.csv");
  BOOST_TEST(again[0].labels.rows == clients[0].labels.rows);
  BOOST_TEST(other[0].labels.rows != clients[0].labels.rows);
}

BOOST_AUTO_TEST_CASE(more_clients_than_columns_is_refused) {
  auto d = table(10, 2);
  BOOST_CHECK_EXCEPTION(fv::deal_table(d, d, 3, 1, "t.csv"), input_error,
                        [](const input_error& e) {
                          return std::string(e.what()).find(
                                     "t.csv has only 2 feature columns") !=
                                 std::string::npos;
                        });
}

BOOST_AUTO_TEST_CASE(a_report_whose_split_fields_differ_in_length_is_refused) {
  fv::training_report t;
  t.split_trees = {0, 1};
  t.split_nodes = {0, 2};
  t.split_features = {3, 4};
  t.split_buckets = {1, 5};
  t.split_thresholds = {0.5f, std::numeric_limits<float>::quiet_NaN()};
  t.split_default_left = {1, 0};
  auto splits = fv::splits_of(t);
  BOOST_REQUIRE(splits.has_value());
  BOOST_TEST(splits->size() == 2u);
  BOOST_TEST(splits->at({1, 2}).feature == 4);
  BOOST_TEST(splits->at({0, 0}).default_left);
  BOOST_TEST(std::isnan(splits->at({1, 2}).threshold));
  t.split_buckets.pop_back();
  BOOST_TEST(!fv::splits_of(t).has_value());
}

BOOST_AUTO_TEST_CASE(hessian_noise_above_lambda_warns_without_a_clamp) {
  fv::params p;
  p.lambda = 1;
  p.sensitivity_h = 0.25;
  p.max_delta_step = 0;
  p.hessian_noise = true; // the paper's
  fv::privacy_report r;
  r.protected_sums = true;
  r.sigma = 4; // hessian noise 4 * 0.25 = 1 = lambda: warned
  BOOST_TEST(fv::privacy_warnings(p, r).size() == 1u);
  p.hessian_noise = false; // H exact (the default): nothing to blow up
  BOOST_TEST(fv::privacy_warnings(p, r).empty());
  p.hessian_noise = true;
  r.sigma = 3.9; // below lambda
  BOOST_TEST(fv::privacy_warnings(p, r).empty());
  r.sigma = 4;
  p.max_delta_step = 0.5; // clamped
  BOOST_TEST(fv::privacy_warnings(p, r).empty());
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
