// OpBoost on one table (protocols/opboost/deal.hpp): Party A gets the
// categorical columns and the labels, the Party Bs the rest in order, each
// Party B column its public bounds or its data's range (named as fitted),
// values outside public bounds counted as clamped; bounds that name no
// party's or Party A's column are refused.
#include <boost/test/unit_test.hpp>

#include "learners/input_error.hpp"
#include "protocols/opboost/deal.hpp"
#include "tests/support/random_data.hpp"

using namespace veil;
namespace op = veil::protocols::opboost;

namespace {

/// Columns a, b, c, d: cell (i, j) = 10 j + i, labels i % 2.
learners::dataset table(std::size_t rows) {
  return veil::test::counting_table(rows, {"a", "b", "c", "d"}, 10);
}

} // namespace

BOOST_AUTO_TEST_SUITE(opboost)
BOOST_AUTO_TEST_SUITE(deal)

BOOST_AUTO_TEST_CASE(party_a_gets_the_categorical_columns_and_the_labels) {
  auto t = table(8);
  op::public_bounds bounds;
  bounds["c"] = {{20, 25}, "--set opboost.bounds.c"}; // c holds 20..27
  op::params p;
  auto dealt = op::deal_table(t, t, true, 3, {"b"}, bounds, p, true, "t.csv");
  BOOST_REQUIRE_EQUAL(dealt.parties.size(), 3u);
  const auto& a = dealt.parties[0];
  BOOST_TEST(a.features.feature_names() == std::vector<std::string>{"b"});
  BOOST_TEST(a.features.has_labels());
  BOOST_TEST(dealt.parties[1].features.feature_names() ==
             std::vector<std::string>{"a"});
  BOOST_TEST(dealt.parties[2].features.feature_names() ==
             (std::vector<std::string>{"c", "d"}));
  BOOST_TEST(!dealt.parties[1].features.has_labels());
  BOOST_TEST(dealt.fitted == (std::vector<std::string>{"a", "d"}));
  BOOST_TEST(dealt.parties[2].maps[0].upper == 25.0);
  BOOST_TEST(dealt.parties[1].maps[0].upper == 7.0); // a: fitted 0..7
  // c's 26 and 27, in the training and the test rows alike.
  BOOST_REQUIRE_EQUAL(dealt.clamped.size(), 1u);
  BOOST_TEST(dealt.clamped[0].find("c (2 training, 2 test values") == 0u,
             dealt.clamped[0]);
}

BOOST_AUTO_TEST_CASE(bounds_must_name_a_party_b_column) {
  std::map<std::string, op::feature_map> bounds{{"b", {0, 1}}};
  std::vector<std::vector<std::string>> columns{{"b"}, {"a", "c"}};
  BOOST_TEST(
      op::bounds_error(bounds, columns, "bank").find("of bank (Party A)") !=
      std::string::npos);
  bounds = {{"zz", {0, 1}}};
  BOOST_TEST(op::bounds_error(bounds, columns, "bank")
                 .find("\"zz\", which no party holds") != std::string::npos);
  bounds = {{"c", {0, 1}}};
  BOOST_TEST(op::bounds_error(bounds, columns, "bank").empty());
}

BOOST_AUTO_TEST_CASE(a_roster_bound_replaces_the_fitted_range) {
  auto t = table(5);
  auto maps = op::maps_for(t, {"b"}, {-3}, {50});
  BOOST_REQUIRE_EQUAL(maps.size(), 4u);
  BOOST_TEST(maps[1].lower == -3.0);
  BOOST_TEST(maps[1].upper == 50.0);
  BOOST_TEST(maps[0].lower == 0.0); // a: its data's 0..4
  BOOST_TEST(maps[0].upper == 4.0);
  BOOST_CHECK_THROW(op::maps_for(t, {"b"}, {5}, {1}), input_error);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
