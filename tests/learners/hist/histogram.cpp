#include "learners/hist/histogram.hpp"

#include "learners/parallel.hpp"
#include "tests/support/random_data.hpp"
#include "tests/support/seeds.hpp"

#include <boost/test/unit_test.hpp>

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

using namespace veil::learners;
using veil::test::all_rows;

namespace {

/// A random dataset and gradients, with the data's cuts and bin matrix.
struct fixture_data : veil::test::data_and_gradients {
  quantile_cuts cuts;
  bin_matrix bins;

  fixture_data(std::size_t rows, std::size_t features, int max_bin,
               std::uint64_t seed)
      : data_and_gradients(
            veil::test::random_data_and_gradients({.rows = rows,
                                                   .features = features,
                                                   .missing_rate = 0.1,
                                                   .seed = seed})),
        cuts(quantile_cuts::compute(d, max_bin)), bins(d, cuts) {}
};

/// The bin of every (row, feature), counted from the raw values and the cuts
/// (missing: the feature's bin count, i.e. its missing slot).
std::vector<int> reference_bins(const fixture_data& x) {
  auto n = x.d.rows(), m = x.d.features();
  std::vector<int> out(n * m);
  for (std::size_t f = 0; f < m; ++f) {
    auto cuts = x.cuts.cuts(f);
    for (std::size_t i = 0; i < n; ++i) {
      float v = x.d.value(i, f);
      int b;
      if (std::isnan(v)) {
        b = static_cast<int>(cuts.size());
      } else {
        b = 0;
        for (float c : cuts)
          b += c <= v ? 1 : 0;
        b = std::min(b, static_cast<int>(cuts.size()) - 1);
      }
      out[i * m + f] = b;
    }
  }
  return out;
}

/// The histogram by brute force: for every feature, every slot of it, every
/// row, add the row's gradient when it falls in that slot.
std::vector<grad_sum> brute_force(const fixture_data& x,
                                  const std::vector<int>& ref,
                                  std::span<const std::uint32_t> rows) {
  auto m = x.d.features();
  std::vector<grad_sum> out;
  for (std::size_t f = 0; f < m; ++f) {
    int slots = x.cuts.bins(f) + 1; // the last one is the missing slot
    for (int s = 0; s < slots; ++s) {
      grad_sum sum;
      for (auto r : rows)
        if (ref[r * m + f] == s) {
          sum.g += x.grads[r].g;
          sum.h += x.grads[r].h;
        }
      out.push_back(sum);
    }
  }
  return out;
}

/// |a - b| <= tol * max(1, |b|), slot by slot, for g and h.
void check_close(std::span<const grad_sum> got, std::span<const grad_sum> want,
                 double tol) {
  BOOST_REQUIRE_EQUAL(got.size(), want.size());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    bool ok = std::abs(got[i].g - want[i].g) <=
                  tol * std::max(1.0, std::abs(want[i].g)) &&
              std::abs(got[i].h - want[i].h) <=
                  tol * std::max(1.0, std::abs(want[i].h));
    if (!ok && ++bad <= 10)
      BOOST_ERROR("slot " << i << ": got (" << got[i].g << ", " << got[i].h
                          << "), expected (" << want[i].g << ", " << want[i].h
                          << ")");
  }
  BOOST_CHECK_EQUAL(bad, 0u);
}

std::vector<grad_sum> build(const fixture_data& x,
                            std::span<const std::uint32_t> rows,
                            int threads = 1) {
  std::vector<grad_sum> h(x.bins.layout().slots());
  build_histogram(x.bins, x.grads, rows, h, threads);
  return h;
}

/// Rows of `all` split by x0 < t (missing goes left).
void split_rows(const fixture_data& x, std::span<const std::uint32_t> all,
                float t, std::vector<std::uint32_t>& left,
                std::vector<std::uint32_t>& right) {
  for (auto r : all) {
    float v = x.d.value(r, 0);
    (std::isnan(v) || v < t ? left : right).push_back(r);
  }
}

/// The level of the two children of `parent`: first `derived`, whose
/// histogram comes from its parent's and sibling's, then `built`, whose
/// histogram is built from its rows.
std::vector<node_request> children(std::int32_t parent, std::int32_t derived,
                                   std::span<const std::uint32_t> derived_rows,
                                   std::int32_t built,
                                   std::span<const std::uint32_t> built_rows) {
  node_request d, b;
  d.node = derived;
  d.parent = parent;
  d.sibling = built;
  d.rows = derived_rows;
  d.build = false;
  b.node = built;
  b.parent = parent;
  b.sibling = derived;
  b.rows = built_rows;
  b.build = true;
  return {d, b};
}

} // namespace

BOOST_AUTO_TEST_SUITE(hist)
BOOST_AUTO_TEST_SUITE(histogram)

BOOST_AUTO_TEST_CASE(hand_example) {
  // x0 takes 1, 2 (2 bins) and is missing in row 2; x1 takes 5 only.
  dataset d(4, {"x0", "x1"});
  d.value(0, 0) = 1;
  d.value(1, 0) = 2;
  d.value(2, 0) = missing_value;
  d.value(3, 0) = 2;
  for (std::size_t i = 0; i < 4; ++i)
    d.value(i, 1) = 5;
  auto cuts = quantile_cuts::compute(d, 256);
  bin_matrix bins(d, cuts);
  std::vector<grad_pair> grads{{1, 2}, {-3, 1}, {0.5f, 4}, {2, 8}};
  std::vector<grad_sum> h(bins.layout().slots());
  BOOST_REQUIRE_EQUAL(h.size(), 5u); // x0: 2 bins + missing, x1: 1 + missing
  std::vector<std::uint32_t> rows{0, 1, 2, 3};
  build_histogram(bins, grads, rows, h);
  // x0 bin 0 (value 1): row 0. Bin 1 (value 2): rows 1, 3. Missing: row 2.
  BOOST_CHECK(h[0] == (grad_sum{1, 2}));
  BOOST_CHECK(h[1] == (grad_sum{-1, 9}));
  BOOST_CHECK(h[2] == (grad_sum{0.5, 4}));
  // x1: every row in bin 0, none missing.
  BOOST_CHECK(h[3] == (grad_sum{0.5, 15}));
  BOOST_CHECK(h[4] == (grad_sum{0, 0}));
  // A subset of rows, accumulated on top of what is there.
  std::vector<std::uint32_t> some{3};
  build_histogram(bins, grads, some, h);
  BOOST_CHECK(h[1] == (grad_sum{1, 17}));
  BOOST_CHECK(h[3] == (grad_sum{2.5, 23}));
}

BOOST_AUTO_TEST_CASE(equals_brute_force) {
  for (int max_bin : {16, 700}) { // narrow and wide bins
    BOOST_TEST_CONTEXT("max_bin " << max_bin) {
      fixture_data x(1500, 5, max_bin, veil::test::histogram_seed + max_bin);
      BOOST_CHECK_EQUAL(x.bins.wide(), max_bin > 255);
      auto ref = reference_bins(x);
      // All rows, and a scattered subset in no particular order.
      auto rows = all_rows(x.d.rows());
      check_close(build(x, rows), brute_force(x, ref, rows), 1e-12);
      std::vector<std::uint32_t> subset;
      for (std::size_t i = 0; i < x.d.rows(); i += 3)
        subset.push_back(static_cast<std::uint32_t>(x.d.rows() - 1 - i));
      check_close(build(x, subset), brute_force(x, ref, subset), 1e-12);
      // No rows: all zero.
      auto empty = build(x, {});
      BOOST_CHECK(std::all_of(empty.begin(), empty.end(),
                              [](auto& s) { return s == grad_sum{}; }));
    }
  }
}

BOOST_AUTO_TEST_CASE(two_threads_equal_one_thread) {
  // 30000 rows * 10 features = 300k steps: threads_for really picks 2.
  fixture_data x(30000, 10, 64, veil::test::histogram_seed + 1);
  auto rows = all_rows(x.d.rows());
  BOOST_REQUIRE_EQUAL(threads_for(rows.size() * x.d.features(), 2), 2);
  auto one = build(x, rows, 1);
  auto two = build(x, rows, 2);
  check_close(two, one, 1e-9);
  auto ref = reference_bins(x);
  check_close(two, brute_force(x, ref, rows), 1e-9);
  // Also on a subset whose blocks are uneven.
  std::vector<std::uint32_t> subset;
  for (std::uint32_t i = 0; i < rows.size(); ++i)
    if (i % 7 != 3)
      subset.push_back(i);
  check_close(build(x, subset, 2), brute_force(x, ref, subset), 1e-9);
}

BOOST_AUTO_TEST_CASE(threads_inside_a_parallel_region) {
  // Called from inside an active parallel region (nesting off), the inner
  // region gets one thread, not the two asked for: every row must still be
  // counted.
  fixture_data x(30000, 10, 64, veil::test::histogram_seed + 2);
  auto rows = all_rows(x.d.rows());
  auto want = brute_force(x, reference_bins(x), rows);
  int saved = omp_get_max_active_levels();
  omp_set_max_active_levels(1);
  std::vector<std::vector<grad_sum>> got(
      2, std::vector<grad_sum>(x.bins.layout().slots()));
#pragma omp parallel num_threads(2)
  {
    int id = omp_get_thread_num();
    if (id < 2)
      build_histogram(x.bins, x.grads, rows, got[id], 2);
  }
  omp_set_max_active_levels(saved);
  check_close(got[0], want, 1e-9);
  // (got[1] is filled only when the outer region had two threads.)
  if (std::any_of(got[1].begin(), got[1].end(),
                  [](auto& s) { return s.h != 0; }))
    check_close(got[1], want, 1e-9);
}

BOOST_AUTO_TEST_CASE(subtraction_trick) {
  fixture_data x(3000, 4, 32, veil::test::histogram_seed + 3);
  auto ref = reference_bins(x);
  auto parent_rows = all_rows(x.d.rows());
  std::vector<std::uint32_t> left, right;
  split_rows(x, parent_rows, 3.0f, left, right);
  BOOST_REQUIRE(left.size() > right.size());
  auto parent = build(x, parent_rows);
  auto smaller = build(x, right);
  std::vector<grad_sum> larger(parent.size());
  subtract_histogram(parent, smaller, larger);
  check_close(larger, brute_force(x, ref, left), 1e-9);
}

BOOST_AUTO_TEST_CASE(histogram_set_builds_and_derives) {
  fixture_data x(2000, 3, 32, veil::test::histogram_seed + 4);
  auto ref = reference_bins(x);
  histogram_set hs(x.bins.layout().slots());

  // Depth 0: the root, built.
  auto root_rows = all_rows(x.d.rows());
  node_request root;
  root.node = 0;
  root.rows = root_rows;
  std::vector<node_request> level{root};
  hs.compute(x.bins, x.grads, level, 1);
  BOOST_REQUIRE(hs.contains(0));
  check_close(hs.of(0), brute_force(x, ref, root_rows), 1e-9);

  // Depth 1: node 1 (x0 < 0 or missing) derived, node 2 built.
  std::vector<std::uint32_t> rows1, rows2;
  split_rows(x, root_rows, 0.0f, rows1, rows2);
  level = children(0, 1, rows1, 2, rows2);
  hs.compute(x.bins, x.grads, level, 1);
  check_close(hs.of(1), brute_force(x, ref, rows1), 1e-9);
  check_close(hs.of(2), brute_force(x, ref, rows2), 1e-9);
  // The root is gone once its children are computed.
  BOOST_CHECK(!hs.contains(0));
  BOOST_CHECK_THROW(hs.of(0), std::logic_error);

  // Depth 2: node 2 splits into 3 (built) and 4 (derived); node 1 became a
  // leaf. Buffers of dropped histograms are reused and must start at zero.
  std::vector<std::uint32_t> rows3, rows4;
  split_rows(x, rows2, 5.0f, rows3, rows4);
  level = children(2, 4, rows4, 3, rows3); // node 4 before 3: any order
  hs.compute(x.bins, x.grads, level, 1);
  check_close(hs.of(3), brute_force(x, ref, rows3), 1e-9);
  check_close(hs.of(4), brute_force(x, ref, rows4), 1e-9);
  BOOST_CHECK(!hs.contains(1));
  BOOST_CHECK(!hs.contains(2));

  // A new tree after clear(): recycled buffers start at zero again.
  hs.clear();
  BOOST_CHECK(!hs.contains(3));
  level = {root};
  hs.compute(x.bins, x.grads, level, 1);
  check_close(hs.of(0), brute_force(x, ref, root_rows), 1e-9);
}

BOOST_AUTO_TEST_CASE(histogram_set_put_and_derive) {
  histogram_set hs(3);
  BOOST_CHECK_THROW(hs.put(0, std::vector<grad_sum>(2)), std::logic_error);
  hs.put(0, {{5, 10}, {-1, 2}, {0.5, 1}});
  hs.put(1, {{2, 3}, {-4, 1}, {0.5, 1}});
  hs.derive(2, 0, 1);
  auto h = hs.of(2);
  BOOST_REQUIRE_EQUAL(h.size(), 3u);
  BOOST_CHECK(h[0] == (grad_sum{3, 7}));
  BOOST_CHECK(h[1] == (grad_sum{3, 1}));
  BOOST_CHECK(h[2] == (grad_sum{0, 0}));
  BOOST_CHECK_THROW(hs.derive(3, 0, 7), std::logic_error);
  // retain keeps only the listed nodes.
  node_request keep;
  keep.node = 2;
  std::vector<node_request> k{keep};
  hs.retain(k);
  BOOST_CHECK(hs.contains(2));
  BOOST_CHECK(!hs.contains(0));
  BOOST_CHECK(!hs.contains(1));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
