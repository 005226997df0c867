#include "learners/binning/bin_matrix.hpp"

#include "tests/support/random_data.hpp"
#include "tests/support/seeds.hpp"

#include <boost/test/unit_test.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

// The suite is called bin_matrix too: spell the class with its namespace.
namespace vl = veil::learners;

namespace {

/// #{c in cuts : c <= x} clamped to the last bin, or `missing` for NaN: the
/// bin a value must get, counted without quantile_cuts::bin_of.
int expected_bin(std::span<const float> cuts, float x, int missing) {
  if (std::isnan(x))
    return missing;
  int n = 0;
  for (float c : cuts)
    n += c <= x ? 1 : 0;
  return std::min(n, static_cast<int>(cuts.size()) - 1);
}

/// Checks every cell of `m` against the data and the cuts.
void check_matrix(const vl::dataset& d, const vl::quantile_cuts& q,
                  const vl::bin_matrix& m) {
  BOOST_REQUIRE_EQUAL(m.rows(), d.rows());
  BOOST_REQUIRE_EQUAL(m.features(), d.features());
  const auto& layout = m.layout();
  BOOST_REQUIRE_EQUAL(layout.features(), d.features());
  std::uint32_t slots = 0;
  for (std::size_t f = 0; f < d.features(); ++f) {
    BOOST_CHECK_EQUAL(layout.bins(f), q.bins(f));
    BOOST_CHECK_EQUAL(layout.offset(f), slots);
    BOOST_CHECK_EQUAL(layout.missing_slot(f), slots + q.bins(f));
    slots += static_cast<std::uint32_t>(q.bins(f)) + 1;
  }
  BOOST_CHECK_EQUAL(layout.slots(), slots);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < d.rows(); ++i)
    for (std::size_t f = 0; f < d.features(); ++f) {
      float x = d.value(i, f);
      int want = expected_bin(q.cuts(f), x, q.bins(f));
      int via_cuts = q.bin_of(f, x) < 0 ? q.bins(f) : q.bin_of(f, x);
      // Stored element, read both through bin() and the raw span.
      int raw = m.wide() ? m.wide_bins()[i * d.features() + f]
                         : m.narrow_bins()[i * d.features() + f];
      if (m.bin(i, f) != want || via_cuts != want || raw != want ||
          m.missing(i, f) != std::isnan(x)) {
        if (++bad <= 10)
          BOOST_ERROR("row " << i << " feature " << f << " x " << x << ": bin "
                             << m.bin(i, f) << ", raw " << raw << ", bin_of "
                             << via_cuts << ", expected " << want);
      }
    }
  BOOST_CHECK_EQUAL(bad, 0u);
}

} // namespace

BOOST_AUTO_TEST_SUITE(binning)
BOOST_AUTO_TEST_SUITE(bin_matrix)

BOOST_AUTO_TEST_CASE(narrow_storage_and_missing_slot) {
  auto d = veil::test::random_dataset({.rows = 500,
                                       .features = 4,
                                       .missing_rate = 0.15,
                                       .seed = veil::test::binning_seed + 20});
  auto q = vl::quantile_cuts::compute(d, 16);
  vl::bin_matrix m(d, q);
  BOOST_CHECK(!m.wide());
  BOOST_CHECK_EQUAL(m.narrow_bins().size(), 500u * 4u);
  BOOST_CHECK(m.wide_bins().empty());
  check_matrix(d, q, m);
  // visit() hands over one-byte bins.
  bool one_byte = m.visit(
      [](auto s) { return sizeof(typename decltype(s)::element_type) == 1; });
  BOOST_CHECK(one_byte);
}

BOOST_AUTO_TEST_CASE(hand_example) {
  // Feature 0 takes 1, 2, 3 (cuts 2, 3, top); feature 1 is all missing.
  vl::dataset d(4, {"x", "gone"});
  d.value(0, 0) = 3;
  d.value(1, 0) = 1;
  d.value(2, 0) = vl::missing_value;
  d.value(3, 0) = 2;
  auto q = vl::quantile_cuts::compute(d, 256);
  vl::bin_matrix m(d, q);
  BOOST_CHECK(!m.wide());
  // Layout: feature 0 owns slots 0..3 (3 is missing), feature 1 owns slot 4.
  BOOST_CHECK_EQUAL(m.layout().slots(), 5u);
  BOOST_CHECK_EQUAL(m.layout().missing_slot(0), 3u);
  BOOST_CHECK_EQUAL(m.layout().missing_slot(1), 4u);
  BOOST_CHECK_EQUAL(m.bin(0, 0), 2);
  BOOST_CHECK_EQUAL(m.bin(1, 0), 0);
  BOOST_CHECK_EQUAL(m.bin(2, 0), 3);
  BOOST_CHECK_EQUAL(m.bin(3, 0), 1);
  BOOST_CHECK(m.missing(2, 0));
  BOOST_CHECK(!m.missing(0, 0));
  for (std::size_t i = 0; i < 4; ++i) {
    BOOST_CHECK_EQUAL(m.bin(i, 1), 0); // the missing slot of a 0-bin feature
    BOOST_CHECK(m.missing(i, 1));
  }
}

BOOST_AUTO_TEST_CASE(boundary_between_narrow_and_wide) {
  // With a missing value, a feature of 255 bins stores 0 .. 254 and the
  // missing slot 255: one byte. With 256 bins the missing slot is 256: two
  // bytes. Without missing values, 256 bins store 0 .. 255, which a byte
  // holds, so either storage is allowed there -- only the values are
  // checked.
  for (int distinct : {255, 256, 257}) {
    for (bool with_missing : {true, false}) {
      BOOST_TEST_CONTEXT("distinct " << distinct << ", missing "
                                     << with_missing) {
        auto n = static_cast<std::size_t>(distinct) + (with_missing ? 1 : 0);
        vl::dataset d(n, {"x"});
        for (int i = 0; i < distinct; ++i)
          d.value(static_cast<std::size_t>(i), 0) = static_cast<float>(i);
        auto q = vl::quantile_cuts::compute(d, 1024);
        BOOST_REQUIRE_EQUAL(q.bins(0), distinct);
        vl::bin_matrix m(d, q);
        if (with_missing || distinct != 256)
          BOOST_CHECK_EQUAL(m.wide(), distinct > 255);
        for (int i = 0; i < distinct; ++i)
          BOOST_CHECK_EQUAL(m.bin(static_cast<std::size_t>(i), 0), i);
        if (with_missing) {
          BOOST_CHECK_EQUAL(m.bin(n - 1, 0), distinct);
          BOOST_CHECK(m.missing(n - 1, 0));
        }
        check_matrix(d, q, m);
      }
    }
  }
}

BOOST_AUTO_TEST_CASE(wide_storage) {
  // Feature 0 has ~1000 bins, feature 1 a handful: one wide matrix.
  auto d = veil::test::random_dataset({.rows = 3000,
                                       .features = 2,
                                       .missing_rate = 0.1,
                                       .seed = veil::test::binning_seed + 21});
  for (std::size_t i = 0; i < d.rows(); ++i)
    if (!std::isnan(d.value(i, 1)))
      d.value(i, 1) = std::floor(d.value(i, 1) / 4);
  auto q = vl::quantile_cuts::compute(d, 1000);
  BOOST_REQUIRE_GT(q.bins(0), 900);
  BOOST_REQUIRE_LT(q.bins(1), 10);
  vl::bin_matrix m(d, q);
  BOOST_CHECK(m.wide());
  BOOST_CHECK_EQUAL(m.wide_bins().size(), 3000u * 2u);
  BOOST_CHECK(m.narrow_bins().empty());
  bool two_bytes = m.visit([](auto s) {
    return std::is_same_v<typename decltype(s)::element_type,
                          const std::uint16_t>;
  });
  BOOST_CHECK(two_bytes);
  check_matrix(d, q, m);
  // Some values really are binned above 255.
  int top = 0;
  for (std::size_t i = 0; i < d.rows(); ++i)
    if (!m.missing(i, 0))
      top = std::max(top, m.bin(i, 0));
  BOOST_CHECK_EQUAL(top, q.bins(0) - 1);
}

BOOST_AUTO_TEST_CASE(threads_give_the_same_matrix) {
  // rows * features * 8 >= 2^17: two threads are used.
  auto d = veil::test::random_dataset(
      {.rows = 5000, .features = 6, .seed = veil::test::binning_seed + 22});
  auto q = vl::quantile_cuts::compute(d, 64);
  vl::bin_matrix m1(d, q, 1);
  vl::bin_matrix m2(d, q, 2);
  check_matrix(d, q, m2);
  BOOST_CHECK(std::equal(m1.narrow_bins().begin(), m1.narrow_bins().end(),
                         m2.narrow_bins().begin(), m2.narrow_bins().end()));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
