// Splits keep each side's rows in their previous order, left side first.
#include "learners/tree/row_partition.hpp"

#include <boost/test/unit_test.hpp>

#include <numeric>
#include <random>
#include <stdexcept>
#include <vector>

using veil::learners::node_split;
using veil::learners::row_partition;

namespace {

std::vector<std::uint32_t>
stable_reference(std::span<const std::uint32_t> rows,
                 const std::vector<std::uint8_t>& f) {
  std::vector<std::uint32_t> out;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (f[i])
      out.push_back(rows[i]);
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (!f[i])
      out.push_back(rows[i]);
  return out;
}

std::vector<std::uint32_t> to_vector(std::span<const std::uint32_t> s) {
  return {s.begin(), s.end()};
}

} // namespace

BOOST_AUTO_TEST_SUITE(tree)
BOOST_AUTO_TEST_SUITE(row_partition)

BOOST_AUTO_TEST_CASE(splits_are_stable_over_levels) {
  for (int threads : {1, 2})
    for (std::size_t n : {0, 1, 2, 7, 8, 9, 1000, 20011}) {
      std::mt19937_64 rng(n * 31 + threads);
      std::vector<std::uint32_t> rows(n);
      std::iota(rows.begin(), rows.end(), 0u);
      std::shuffle(rows.begin(), rows.end(), rng); // any initial order
      ::row_partition p(rows);
      std::vector<std::int32_t> level{0};
      std::int32_t next_id = 1;
      for (int depth = 0; depth < 4; ++depth) {
        std::vector<std::vector<std::uint8_t>> flags;
        std::vector<std::vector<std::uint32_t>> want;
        std::vector<node_split> splits;
        std::vector<std::int32_t> children;
        for (auto node : level) {
          std::vector<std::uint8_t> f(p.size(node));
          // Flags as any nonzero byte, in runs and at random.
          std::uniform_int_distribution<int> byte(0, 255);
          for (auto& x : f)
            x = static_cast<std::uint8_t>(depth % 2 ? byte(rng) % 2 * byte(rng)
                                                    : byte(rng) < 100);
          want.push_back(stable_reference(p.rows_of(node), f));
          flags.push_back(std::move(f));
        }
        for (std::size_t k = 0; k < level.size(); ++k) {
          splits.push_back({level[k], next_id, next_id + 1, flags[k]});
          children.push_back(next_id);
          children.push_back(next_id + 1);
          next_id += 2;
        }
        p.split(splits, threads);
        for (std::size_t k = 0; k < level.size(); ++k) {
          auto l = to_vector(p.rows_of(splits[k].left));
          auto r = to_vector(p.rows_of(splits[k].right));
          l.insert(l.end(), r.begin(), r.end());
          BOOST_TEST(l == want[k], "n = " << n << " depth " << depth);
          std::size_t lefts = 0;
          for (auto x : flags[k])
            lefts += x != 0;
          BOOST_TEST(p.size(splits[k].left) == lefts);
        }
        level = children;
      }
    }
}

BOOST_AUTO_TEST_CASE(malformed_split_changes_nothing) {
  ::row_partition p(std::vector<std::uint32_t>{4, 3, 2, 1});
  std::vector<std::uint8_t> f{1, 0, 1};
  std::vector<node_split> s{{0, 1, 2, f}};
  BOOST_CHECK_THROW(p.split(s), std::invalid_argument);
  BOOST_TEST(to_vector(p.rows_of(0)) ==
             (std::vector<std::uint32_t>{4, 3, 2, 1}));
  BOOST_TEST(!p.contains(1));
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
