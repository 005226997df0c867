// The files a federated model lives in: a split table keeps every
// threshold exactly (infinite ones too, which JSON cannot hold as numbers),
// refuses a NaN one, and a part is read back only by its party and for its
// model; a part is written only over an earlier part of the same format.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <string>

#include "learners/input_error.hpp"
#include "protocols/session/model_file.hpp"
#include "tests/support/temp_dir.hpp"

using namespace veil::protocols::session;

namespace {

bool throws_with(const std::function<void()>& f, const std::string& what) {
  try {
    f();
  } catch (const veil::input_error& e) {
    return std::string(e.what()).find(what) != std::string::npos;
  }
  return false;
}

} // namespace

BOOST_AUTO_TEST_SUITE(session)
BOOST_AUTO_TEST_SUITE(model_file)

BOOST_AUTO_TEST_CASE(split_tables_round_trip_every_threshold) {
  veil::test::temp_dir dir;
  constexpr float inf = std::numeric_limits<float>::infinity();
  split_export t{"shop",
                 {{0, 0, "age", 37.5f, true},
                  {0, 2, "income", 1e-30f, false},
                  {3, 1, "age", inf, false},
                  {4, 5, "debt", -inf, true},
                  {5, 6, "debt", 0.1f, false}}};
  auto path = dir / "m.json.shop";
  save_split_table(t, "id-1", path);
  auto back = load_split_table(path, "shop", "id-1");
  BOOST_REQUIRE_EQUAL(back.splits.size(), t.splits.size());
  for (std::size_t k = 0; k < t.splits.size(); ++k) {
    BOOST_TEST(back.splits[k].tree == t.splits[k].tree);
    BOOST_TEST(back.splits[k].node == t.splits[k].node);
    BOOST_TEST(back.splits[k].feature == t.splits[k].feature);
    BOOST_TEST(back.splits[k].threshold == t.splits[k].threshold);
    BOOST_TEST(back.splits[k].default_left == t.splits[k].default_left);
  }
  BOOST_TEST(throws_with([&] { load_split_table(path, "bank", "id-1"); },
                         "shop's part, not bank's"));
  BOOST_TEST(throws_with([&] { load_split_table(path, "shop", "id-2"); },
                         "belongs to model id-1, not to model id-2"));
  auto nan = t;
  nan.splits[0].threshold = std::numeric_limits<float>::quiet_NaN();
  BOOST_TEST(throws_with([&] { save_split_table(nan, "id-1", path); },
                         "tree 0, node 0 has no threshold"));
}

BOOST_AUTO_TEST_CASE(a_part_replaces_only_an_earlier_part) {
  veil::test::temp_dir dir;
  auto path = dir / "m.json.shop";
  {
    std::ofstream out(path);
    out << "id,salary\n1,100\n";
  }
  split_export t{"shop", {{0, 0, "age", 1.0f, true}}};
  BOOST_TEST(throws_with([&] { save_split_table(t, "id-1", path); },
                         "refusing to write the model part"));
  std::ifstream in(path);
  std::string first;
  std::getline(in, first);
  BOOST_TEST(first == "id,salary");
  std::filesystem::remove(path);
  save_split_table(t, "id-1", path);
  save_split_table(t, "id-2", path); // a model saved again
  BOOST_TEST(load_split_table(path, "shop", "id-2").splits.size() == 1u);
}

BOOST_AUTO_TEST_SUITE_END()
BOOST_AUTO_TEST_SUITE_END()
