#include "learners/binning/quantile_cuts.hpp"

#include "learners/input_error.hpp"
#include "tests/support/random_data.hpp"
#include "tests/support/seeds.hpp"

#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <vector>

// The suite is called quantile_cuts too: spell the class with its namespace.
namespace vl = veil::learners;

namespace {

const float nan_v = std::numeric_limits<float>::quiet_NaN();

/// XGBoost's last bound: above the maximum by |max| + 1e-5 (in float).
float top_bound(float max) {
  return max + (std::fabs(max) + 1e-5f);
}

/// The documented cuts of one column, from the rule and nothing else: one bin
/// per distinct value when there are at most max_bin of them (the bound of a
/// value's bin is the next distinct value); otherwise the sorted-sample
/// quantiles s[floor(i * n / max_bin)], i = 1 .. max_bin - 1, keeping only
/// those above the minimum (a cut at the minimum would leave bin 0 empty) and
/// dropping repeats. Either way the last bound is top_bound(max).
std::vector<float> reference_cuts(const std::vector<float>& values,
                                  int max_bin) {
  std::vector<float> s;
  for (float x : values)
    if (!std::isnan(x))
      s.push_back(x);
  if (s.empty())
    return {};
  std::sort(s.begin(), s.end());
  std::set<float> distinct(s.begin(), s.end());
  std::vector<float> cuts;
  if (distinct.size() <= static_cast<std::size_t>(max_bin)) {
    cuts.assign(std::next(distinct.begin()), distinct.end());
  } else {
    std::set<float> kept;
    for (std::size_t i = 1; i < static_cast<std::size_t>(max_bin); ++i) {
      float q = s[i * s.size() / static_cast<std::size_t>(max_bin)];
      if (q > s.front())
        kept.insert(q);
    }
    cuts.assign(kept.begin(), kept.end());
  }
  cuts.push_back(top_bound(s.back()));
  return cuts;
}

/// #{c in cuts : c <= x}, clamped to the last bin: a linear count.
int reference_bin(const std::vector<float>& cuts, float x) {
  int n = 0;
  for (float c : cuts)
    n += c <= x ? 1 : 0;
  return std::min(n, static_cast<int>(cuts.size()) - 1);
}

std::vector<float> to_vector(std::span<const float> s) {
  return {s.begin(), s.end()};
}

vl::dataset one_column(const std::vector<float>& values) {
  vl::dataset d(values.size(), {"x"});
  std::copy(values.begin(), values.end(), d.column(0).begin());
  return d;
}

/// Cuts of `values` through quantile_cuts::compute (the public entry point).
std::vector<float> cuts_of(const std::vector<float>& values, int max_bin) {
  auto q = vl::quantile_cuts::compute(one_column(values), max_bin);
  BOOST_REQUIRE_EQUAL(q.features(), 1u);
  return to_vector(q.cuts(0));
}

} // namespace

BOOST_AUTO_TEST_SUITE(binning)
BOOST_AUTO_TEST_SUITE(quantile_cuts)

BOOST_AUTO_TEST_CASE(few_distinct_values_get_one_bin_each) {
  // Distinct values 1, 2, 3, 5 (<= max_bin = 8): bins [.., 2), [2, 3),
  // [3, 5), [5, top) with top = 5 + 5 + 1e-5.
  std::vector<float> values{3, 1, 2, 3, 1, nan_v, 2, 5, 5, 5};
  auto q = vl::quantile_cuts::compute(one_column(values), 8);
  std::vector<float> expected{2, 3, 5, 5.0f + (5.0f + 1e-5f)};
  auto got = to_vector(q.cuts(0));
  BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), expected.begin(),
                                expected.end());
  BOOST_CHECK_EQUAL(q.bins(0), 4);
  BOOST_CHECK_EQUAL(q.max_bins(), 4);
  BOOST_CHECK_EQUAL(q.bin_of(0, 1), 0);
  BOOST_CHECK_EQUAL(q.bin_of(0, 2), 1);
  BOOST_CHECK_EQUAL(q.bin_of(0, 3), 2);
  BOOST_CHECK_EQUAL(q.bin_of(0, 5), 3);
  // Between values: 2.5 is in 2's bin, and below the minimum is bin 0.
  BOOST_CHECK_EQUAL(q.bin_of(0, 2.5f), 1);
  BOOST_CHECK_EQUAL(q.bin_of(0, -100), 0);
  // threshold(b) is the bound of bin b.
  BOOST_CHECK_EQUAL(q.threshold(0, 0), 2.0f);
  BOOST_CHECK_EQUAL(q.threshold(0, 2), 5.0f);
}

BOOST_AUTO_TEST_CASE(exactly_max_bin_distinct_values_keep_one_bin_each) {
  // 4 distinct values and max_bin = 4: still one bin per value.
  std::vector<float> values{10, 20, 30, 40, 40, 10};
  std::vector<float> expected{20, 30, 40, top_bound(40)};
  auto got = cuts_of(values, 4);
  BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), expected.begin(),
                                expected.end());
}

BOOST_AUTO_TEST_CASE(negative_and_single_values) {
  // Negative maximum: top = -2 + (2 + 1e-5), still above -2.
  auto got = cuts_of({-3, -2, -3}, 16);
  std::vector<float> expected{-2, -2.0f + (2.0f + 1e-5f)};
  BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), expected.begin(),
                                expected.end());
  BOOST_CHECK_GT(got.back(), -2.0f);
  // One distinct value: one bin whose bound is above it.
  got = cuts_of({7, 7, nan_v, 7}, 16);
  BOOST_REQUIRE_EQUAL(got.size(), 1u);
  BOOST_CHECK_EQUAL(got[0], top_bound(7));
  // Zero: the bound is 1e-5.
  got = cuts_of({0, 0}, 2);
  BOOST_REQUIRE_EQUAL(got.size(), 1u);
  BOOST_CHECK_EQUAL(got[0], 1e-5f);
}

BOOST_AUTO_TEST_CASE(many_values_hand_example) {
  // 1, 2, ..., 20 with max_bin 4: n = 20, ranks floor(i * 20 / 4) = 5, 10,
  // 15 hold 6, 11, 16; the last bound is 20 + 20 + 1e-5.
  std::vector<float> values;
  for (int v = 20; v >= 1; --v)
    values.push_back(static_cast<float>(v));
  auto got = cuts_of(values, 4);
  std::vector<float> expected{6, 11, 16, 20.0f + (20.0f + 1e-5f)};
  BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), expected.begin(),
                                expected.end());
}

BOOST_AUTO_TEST_CASE(many_values_drop_the_minimum_and_repeats) {
  // Ten zeros then 1 .. 10 (11 distinct > max_bin 4): ranks 5, 10, 15 hold
  // 0, 1, 6. The 0 is the minimum and is dropped: bins [0, 1), [1, 6),
  // [6, top).
  std::vector<float> values(10, 0.0f);
  for (int v = 1; v <= 10; ++v)
    values.push_back(static_cast<float>(v));
  auto got = cuts_of(values, 4);
  std::vector<float> expected{1, 6, 10.0f + (10.0f + 1e-5f)};
  BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), expected.begin(),
                                expected.end());

  // 0 .. 4 then fifteen 5s (6 distinct > 4): ranks 5, 10, 15 all hold 5,
  // which is kept once.
  values = {0, 1, 2, 3, 4};
  values.resize(20, 5.0f);
  got = cuts_of(values, 4);
  expected = {5, top_bound(5)};
  BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), expected.begin(),
                                expected.end());
}

BOOST_AUTO_TEST_CASE(many_values_match_sorted_sample_quantiles) {
  for (std::size_t levels : {0, 40, 300}) {
    auto d =
        veil::test::random_dataset({.rows = 1000,
                                    .features = 1,
                                    .missing_rate = 0.2,
                                    .levels = levels,
                                    .seed = veil::test::binning_seed + levels});
    std::vector<float> values(d.column(0).begin(), d.column(0).end());
    for (int max_bin : {2, 3, 16, 32, 256}) {
      BOOST_TEST_CONTEXT("levels " << levels << ", max_bin " << max_bin) {
        auto expected = reference_cuts(values, max_bin);
        auto got = cuts_of(values, max_bin);
        BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), expected.begin(),
                                      expected.end());
        BOOST_CHECK_LE(got.size(), static_cast<std::size_t>(max_bin));
        BOOST_CHECK(std::is_sorted(got.begin(), got.end()));
        BOOST_CHECK(std::adjacent_find(got.begin(), got.end()) == got.end());
        // Every bin holds at least one training value, and every training
        // value is below the last bound.
        std::vector<int> count(got.size(), 0);
        for (float x : values)
          if (!std::isnan(x)) {
            BOOST_CHECK_LT(x, got.back());
            ++count[reference_bin(got, x)];
          }
        for (std::size_t b = 0; b < count.size(); ++b)
          BOOST_CHECK_MESSAGE(count[b] > 0, "bin " << b << " is empty");
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(bin_of_agrees_with_the_cuts) {
  auto d = veil::test::random_dataset({.rows = 2000,
                                       .features = 1,
                                       .missing_rate = 0.05,
                                       .seed = veil::test::binning_seed});
  auto q = vl::quantile_cuts::compute(d, 64);
  auto cuts = to_vector(q.cuts(0));
  BOOST_REQUIRE_EQUAL(q.bins(0), static_cast<int>(cuts.size()));
  BOOST_REQUIRE_GT(cuts.size(), 10u);
  // Probes: random values around the data's range, and every cut exactly
  // (a value equal to a cut belongs to the bin above it).
  veil::test::rng r(veil::test::binning_seed + 100);
  std::vector<float> probes(cuts.begin(), cuts.end() - 1);
  for (int i = 0; i < 2000; ++i)
    probes.push_back(static_cast<float>(r.uniform(-12, 12)));
  for (float x : probes) {
    int bin = q.bin_of(0, x);
    BOOST_CHECK_EQUAL(bin, reference_bin(cuts, x));
    // Split semantics: bin <= b iff x < cuts[b], for every b (all probes
    // lie below the last bound).
    for (std::size_t b = 0; b < cuts.size(); ++b)
      if ((bin <= static_cast<int>(b)) != (x < cuts[b]))
        BOOST_ERROR("x = " << x << " in bin " << bin << ", cut " << b << " = "
                           << cuts[b]);
  }
  // Above the last bound the bin is clamped to the last one.
  BOOST_CHECK_EQUAL(q.bin_of(0, cuts.back()), q.bins(0) - 1);
  BOOST_CHECK_EQUAL(q.bin_of(0, 1e30f), q.bins(0) - 1);
  BOOST_CHECK_EQUAL(q.bin_of(0, std::numeric_limits<float>::infinity()),
                    q.bins(0) - 1);
  BOOST_CHECK_EQUAL(q.bin_of(0, -std::numeric_limits<float>::infinity()), 0);
  // Missing.
  BOOST_CHECK_EQUAL(q.bin_of(0, nan_v), -1);
  BOOST_CHECK_EQUAL(q.bin_of(0, vl::missing_value), -1);
}

BOOST_AUTO_TEST_CASE(all_missing_column_has_no_bins) {
  vl::dataset d(5, {"a", "empty", "b"});
  for (std::size_t i = 0; i < 5; ++i) {
    d.value(i, 0) = static_cast<float>(i);
    d.value(i, 2) = 1;
  }
  auto q = vl::quantile_cuts::compute(d, 16);
  BOOST_REQUIRE_EQUAL(q.features(), 3u);
  BOOST_CHECK_EQUAL(q.bins(0), 5);
  BOOST_CHECK_EQUAL(q.bins(1), 0);
  BOOST_CHECK(q.cuts(1).empty());
  BOOST_CHECK_EQUAL(q.bins(2), 1);
  BOOST_CHECK_EQUAL(q.bin_of(1, 3.0f), -1);
  BOOST_CHECK_EQUAL(q.bin_of(1, nan_v), -1);
  BOOST_CHECK_EQUAL(q.max_bins(), 5);
  // The neighbours' cuts are not disturbed by the empty feature.
  std::vector<float> expected{1, 2, 3, 4, top_bound(4)};
  auto got = to_vector(q.cuts(0));
  BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), expected.begin(),
                                expected.end());
  BOOST_CHECK_EQUAL(q.cuts(2)[0], top_bound(1));
}

BOOST_AUTO_TEST_CASE(invalid_max_bin_throws) {
  auto d = one_column({1, 2, 3});
  for (int bad : {-5, 0, 1, 65536, 1 << 20})
    BOOST_CHECK_THROW(vl::quantile_cuts::compute(d, bad), veil::input_error);
  BOOST_CHECK_NO_THROW(vl::quantile_cuts::compute(d, 2));
  BOOST_CHECK_NO_THROW(vl::quantile_cuts::compute(d, 65535));
}

BOOST_AUTO_TEST_CASE(several_features_and_threads) {
  // Enough work (rows * features * 16 >= 2^17) for two threads.
  auto d = veil::test::random_dataset(
      {.rows = 4000, .features = 4, .seed = veil::test::binning_seed + 7});
  // Feature 3 takes few values.
  for (std::size_t i = 0; i < d.rows(); ++i)
    if (!std::isnan(d.value(i, 3)))
      d.value(i, 3) = std::floor(d.value(i, 3));
  for (int threads : {1, 2}) {
    auto q = vl::quantile_cuts::compute(d, 32, threads);
    BOOST_REQUIRE_EQUAL(q.features(), 4u);
    int max_bins = 0;
    for (std::size_t f = 0; f < 4; ++f) {
      std::vector<float> values(d.column(f).begin(), d.column(f).end());
      auto expected = reference_cuts(values, 32);
      auto got = to_vector(q.cuts(f));
      BOOST_CHECK_EQUAL_COLLECTIONS(got.begin(), got.end(), expected.begin(),
                                    expected.end());
      max_bins = std::max(max_bins, static_cast<int>(expected.size()));
    }
    BOOST_CHECK_EQUAL(q.max_bins(), max_bins);
    BOOST_CHECK_EQUAL(q.bins(3), 20); // floor of [-10, 10): -10 .. 9
  }
}

BOOST_AUTO_TEST_CASE(from_columns_keeps_the_given_bounds) {
  auto q = vl::quantile_cuts::from_columns({{1, 2, 3}, {}, {-1}});
  BOOST_REQUIRE_EQUAL(q.features(), 3u);
  BOOST_CHECK_EQUAL(q.bins(0), 3);
  BOOST_CHECK_EQUAL(q.bins(1), 0);
  BOOST_CHECK_EQUAL(q.bins(2), 1);
  BOOST_CHECK_EQUAL(q.threshold(0, 1), 2.0f);
  BOOST_CHECK_EQUAL(q.threshold(2, 0), -1.0f);
  BOOST_CHECK_EQUAL(q.bin_of(0, 1.5f), 1);
  BOOST_CHECK_EQUAL(q.bin_of(0, 0.5f), 0);
  BOOST_CHECK_EQUAL(q.bin_of(0, 2.0f), 2);
  BOOST_CHECK_EQUAL(q.bin_of(2, 5.0f), 0);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
