// The veil program as a user runs it: exit codes, error messages that name
// the file, line and field, and the report's stable field names.
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

namespace fs = std::filesystem;
using veil::test::contains;
using veil::test::run_veil;
using veil::test::temp_dir;

namespace {

std::string small_csv() {
  std::string s = "a,b,c,label\n";
  for (int i = 0; i < 200; ++i)
    s += std::to_string(i % 17) + "," + std::to_string((i * 7) % 11) + "," +
         (i % 5 == 0 ? "" : std::to_string(i % 3)) + "," +
         std::to_string((i % 17) > 8 ? 1 : 0) + "\n";
  return s;
}

} // namespace

BOOST_AUTO_TEST_SUITE(cli)

BOOST_AUTO_TEST_CASE(help_is_complete) {
  for (auto sub : {"", "train ", "predict ", "export ", "generate "}) {
    auto r = run_veil(std::string(sub) + "--help");
    BOOST_TEST(r.status == 0);
    BOOST_TEST(!r.output.empty());
  }
  auto r = run_veil("train --help");
  for (auto flag : {"--data", "--test", "--label", "--id", "--objective",
                    "--trees", "--depth", "--eta", "--lambda", "--max-bin",
                    "--threads", "--seed", "--model-out", "--set", "--report"})
    BOOST_TEST(contains(r.output, flag), "train --help lacks " << flag);
}

BOOST_AUTO_TEST_CASE(train_report_and_predict) {
  temp_dir dir;
  auto data = dir.file("d.csv", small_csv());
  auto r = run_veil("train --data " + data +
                    " --trees 5 --depth 3 --threads 1 " + "--model-out " +
                    (dir / "m.json") + " --report " + (dir / "r.json"));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  nlohmann::json rep;
  std::ifstream(dir / "r.json") >> rep;
  for (auto key :
       {"protocol", "rows", "features", "metrics", "train_seconds", "privacy"})
    BOOST_TEST(rep.contains(key), "report lacks " << key);
  BOOST_TEST(rep["protocol"] == "centralized");
  BOOST_TEST(rep["rows"] == 200);
  BOOST_TEST(rep["features"] == 3);
  BOOST_TEST(rep["privacy"]["mechanism"] == "none");
  for (auto key : {"auc", "accuracy", "logloss"})
    BOOST_TEST(rep["metrics"].contains(key));
  auto p = run_veil("predict --model " + (dir / "m.json") + " --data " + data +
                    " --label label --out " + (dir / "p.csv"));
  BOOST_REQUIRE_MESSAGE(p.status == 0, p.output);
  BOOST_TEST(contains(p.output, "auc"));
  std::ifstream in(dir / "p.csv");
  std::string line;
  int lines = 0;
  while (std::getline(in, line))
    ++lines;
  BOOST_TEST(lines == 201);
}

BOOST_AUTO_TEST_CASE(regression_report_has_rmse) {
  temp_dir dir;
  auto data = dir.file("d.csv", small_csv());
  auto r = run_veil("train --data " + data +
                    " --objective reg:squarederror --trees 3 --threads 1 "
                    "--report " +
                    (dir / "r.json"));
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  nlohmann::json rep;
  std::ifstream(dir / "r.json") >> rep;
  BOOST_TEST(rep["metrics"].contains("rmse"));
  BOOST_TEST(rep["metrics"].contains("mse"));
}

BOOST_AUTO_TEST_CASE(bad_input_names_file_line_and_field) {
  temp_dir dir;
  auto missing = run_veil("train --data " + (dir / "nope.csv"));
  BOOST_TEST(missing.status == 2);
  BOOST_TEST(contains(missing.output, "nope.csv"));

  auto bad = dir.file("bad.csv", "a,b,label\n1,2,0\n3,x,1\n");
  auto r = run_veil("train --data " + bad);
  BOOST_TEST(r.status == 2);
  BOOST_TEST(contains(r.output, "bad.csv"));
  BOOST_TEST(contains(r.output, ":3"));
  BOOST_TEST(contains(r.output, "\"b\""));

  auto short_row = dir.file("short.csv", "a,b,label\n1,2,0\n3,1\n");
  r = run_veil("train --data " + short_row);
  BOOST_TEST(r.status == 2);
  BOOST_TEST(contains(r.output, "short.csv:3"));

  // Good data, a bad option: the message names what is wrong.
  auto good = dir.file("good.csv", small_csv());
  struct bad_option {
    const char* option;
    const char* named;
  };
  for (auto [option, named] :
       {bad_option{"--label target", "target"},
        bad_option{"--set no_such_thing=1", "no_such_thing"},
        bad_option{"--depth 0", "max_depth"},
        bad_option{"--objective binary:hinge", "binary:hinge"}}) {
    BOOST_TEST_CONTEXT(option) {
      r = run_veil("train --data " + good + " " + option);
      BOOST_TEST(r.status == 2);
      BOOST_TEST(contains(r.output, named));
    }
  }

  // Nothing is half-written when training fails.
  r = run_veil("train --data " + bad + " --model-out " + (dir / "m.json") +
               " --report " + (dir / "r.json"));
  BOOST_TEST(!fs::exists(dir / "m.json"));
  BOOST_TEST(!fs::exists(dir / "r.json"));
}

BOOST_AUTO_TEST_CASE(bad_model_file_is_refused) {
  temp_dir dir;
  auto m = dir.file("m.json", "{\"format\": \"veil-model\", \"version\": 1}");
  auto d = dir.file("d.csv", small_csv());
  auto r = run_veil("predict --model " + m + " --data " + d);
  BOOST_TEST(r.status == 2);
  BOOST_TEST(contains(r.output, "m.json"));
  BOOST_TEST(contains(r.output, "objective"));
}

BOOST_AUTO_TEST_SUITE_END()
