// `veil train --protocol feverless --model-out MODEL` writes the public
// model, which holds no feature and no threshold of any split (spec
// feverless §8.4), and one split table per client, MODEL.<client>, with
// exactly the splits that client owns.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/support/files.hpp"
#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::lcg;
using veil::test::read_json;
using veil::test::run_veil;
using veil::test::temp_dir;

namespace {

/// 400 rows, 6 features a..f, a label that depends on a, c and e; with
/// `holes`, a value is left out (missing) more often where the label is 1.
std::string write_csv(const temp_dir& dir, bool holes = false) {
  auto path = dir.path(holes ? "holes.csv" : "d.csv");
  std::ofstream out(path);
  out << "a,b,c,d,e,f,label\n";
  lcg next(777);
  for (int i = 0; i < 400; ++i) {
    double x[6];
    for (auto& v : x)
      v = next();
    int y = x[0] + 0.7 * x[2] - 0.5 * x[4] > 0.6 ? 1 : 0;
    for (auto v : x) {
      if (!holes || next() > (y ? 0.3 : 0.1))
        out << v;
      out << ",";
    }
    out << y << "\n";
  }
  return path;
}

} // namespace

BOOST_AUTO_TEST_SUITE(feverless_model_out)

BOOST_AUTO_TEST_CASE(public_model_and_one_split_table_per_client) {
  temp_dir dir;
  auto data = write_csv(dir);
  auto model = dir.path("m.json");
  auto r = run_veil("train --protocol feverless-plain --parties 3 --data " +
                    data + " --trees 3 --depth 3 --model-out " + model);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  auto m = read_json(model);
  // Columns per client: contiguous blocks of a..f.
  const std::vector<std::set<std::string>> columns = {
      {"a", "b"}, {"c", "d"}, {"e", "f"}};
  // (tree, node) -> owner, for every split of the public model.
  std::map<std::pair<int, int>, int> owner;
  for (std::size_t t = 0; t < m["trees"].size(); ++t) {
    const auto& nodes = m["trees"][t]["nodes"];
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      const auto& n = nodes[k];
      if (n.contains("leaf"))
        continue;
      BOOST_TEST(n["feature"] == -1);
      BOOST_TEST(n["threshold"].is_null()); // no client's threshold
      owner[{static_cast<int>(t), static_cast<int>(k)}] = n["owner"].get<int>();
    }
  }
  BOOST_REQUIRE(!owner.empty());
  std::size_t listed = 0;
  for (int c = 0; c < 3; ++c) {
    auto name = "client" + std::to_string(c);
    auto table = read_json(model + "." + name);
    BOOST_TEST(table["format"] == "veil-split-table");
    BOOST_TEST(table["party"] == name);
    for (const auto& s : table["splits"]) {
      std::pair key{s["tree"].get<int>(), s["node"].get<int>()};
      BOOST_REQUIRE(owner.contains(key));
      BOOST_TEST(owner[key] == c);
      BOOST_TEST(columns[c].contains(s["feature"].get<std::string>()));
      BOOST_TEST(std::isfinite(s["threshold"].get<double>()));
      ++listed;
    }
  }
  // Every split is in exactly one client's table.
  BOOST_TEST(listed == owner.size());
  BOOST_TEST(!std::filesystem::exists(model + ".client3"));
  // veil predict runs the clients again, each from its own table, and
  // gives the training session's predictions (the training rows here).
  auto p = run_veil("predict --model " + model + " --data " + data + " --out " +
                    model + ".csv");
  BOOST_TEST(p.status == 0, p.output);
  BOOST_TEST(veil::test::contains(p.output, "predicted 400 rows with 3 "
                                            "parties (feverless-plain"),
             p.output);
  // veil export cannot use the public model alone, and says why.
  auto x = run_veil("export --model " + model + " --format xgboost --out " +
                    model + ".xgb");
  BOOST_TEST(x.status == 2, x.output);
  BOOST_TEST(veil::test::contains(x.output, "cannot predict on its own"),
             x.output);
  BOOST_TEST(veil::test::contains(x.output, "the public part of a "
                                            "feverless-plain federated model"),
             x.output);
  BOOST_TEST(!std::filesystem::exists(model + ".xgb"));
}

BOOST_AUTO_TEST_CASE(split_tables_keep_where_missing_values_go) {
  // feverless-plain builds centralized training's trees (see
  // feverless_cli); each exported split must carry the same default
  // direction for missing values as the centralized model's node.
  temp_dir dir;
  auto data = write_csv(dir, true);
  auto model = dir.path("m.json");
  auto central = dir.path("c.json");
  auto r = run_veil("train --protocol feverless-plain --parties 3 --data " +
                    data + " --trees 3 --depth 3 --model-out " + model);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  auto c = run_veil("train --protocol centralized --data " + data +
                    " --trees 3 --depth 3 --threads 1 --set max_bin=10 "
                    "--set base_score=0.5 --set min_child_weight=0 "
                    "--model-out " +
                    central);
  BOOST_REQUIRE_MESSAGE(c.status == 0, c.output);
  auto cm = read_json(central);
  std::size_t splits = 0, left = 0;
  for (int k = 0; k < 3; ++k) {
    auto table = read_json(model + ".client" + std::to_string(k));
    for (const auto& s : table["splits"]) {
      const auto& n =
          cm["trees"][s["tree"].get<int>()]["nodes"][s["node"].get<int>()];
      BOOST_TEST(n["default_left"] == s["default_left"]);
      BOOST_TEST(n["threshold"].get<double>() == s["threshold"].get<double>());
      ++splits;
      left += s["default_left"].get<bool>();
    }
  }
  BOOST_TEST(splits > 0u);
  BOOST_TEST(left > 0u); // the test means something
}

BOOST_AUTO_TEST_SUITE_END()
