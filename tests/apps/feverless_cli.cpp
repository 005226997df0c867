// `veil train --protocol feverless` as a user runs it: clients in this
// process as actors, the report's protocol, privacy (per query and total)
// and bytes; one client is a clear error.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::contains;
using veil::test::run_veil;
using veil::test::temp_dir;

namespace {

/// 300 rows, 6 features, a label that depends on two of them.
std::string write_small_csv(const temp_dir& dir) {
  auto path = dir.path("small.csv");
  std::ofstream out(path);
  out << "a,b,c,d,e,f,label\n";
  std::uint64_t s = 12345;
  auto next = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  };
  for (int i = 0; i < 300; ++i) {
    double x[6];
    for (auto& v : x)
      v = next();
    int y = x[0] + 0.5 * x[3] > 0.75 ? 1 : 0;
    out << x[0] << "," << x[1] << "," << x[2] << "," << x[3] << "," << x[4]
        << "," << x[5] << "," << y << "\n";
  }
  return path;
}

} // namespace

BOOST_AUTO_TEST_SUITE(feverless_cli)

BOOST_AUTO_TEST_CASE(feverless_cli_report) {
  temp_dir dir;
  auto data = write_small_csv(dir);
  auto report = dir.path("r.json");
  auto r = run_veil("train --protocol feverless --parties 3 --data " + data +
                    " --trees 2 --depth 3 --report " + report);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(r.output.find("privacy: per query") != std::string::npos);
  nlohmann::json j;
  std::ifstream(report) >> j;
  BOOST_TEST(j["protocol"] == "feverless");
  BOOST_TEST(j["parties"] == 3);
  BOOST_TEST(j["trees"] == 2);
  const auto& pv = j["privacy"];
  BOOST_TEST(pv["budget"] == "total");
  BOOST_TEST(pv["budget_epsilon"].get<double>() == 2.0);
  BOOST_TEST(pv["calibration"] == "analytic");
  BOOST_TEST(pv["per_query"]["epsilon"].get<double>() > 0);
  BOOST_TEST(pv["per_query"]["epsilon"].get<double>() < 2.0);
  BOOST_TEST(pv["total"]["zcdp"]["epsilon"].get<double>() <= 2.0 + 1e-9);
  BOOST_TEST(pv["total"]["basic"]["epsilon"].get<double>() > 0);
  BOOST_TEST(pv["sigma"].get<double>() > 0);
  BOOST_TEST(j["bytes"]["total"].get<std::uint64_t>() > 0u);
  for (auto name : {"client0", "client1", "client2"}) {
    const auto& b = j["bytes"]["per_party"][name];
    BOOST_TEST(b["sent"].get<std::uint64_t>() > 0u);
    BOOST_TEST(b["by_type"].contains("masked"));
  }
}

BOOST_AUTO_TEST_CASE(feverless_cli_per_query_and_classical_warning) {
  temp_dir dir;
  auto data = write_small_csv(dir);
  auto report = dir.path("r.json");
  auto r = run_veil("train --protocol feverless --parties 2 --data " + data +
                    " --trees 1 --depth 2 --set feverless.query_epsilon=2 "
                    "--set feverless.calibration=classical --report " +
                    report);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  nlohmann::json j;
  std::ifstream(report) >> j;
  BOOST_TEST(j["privacy"]["budget"] == "per_query");
  BOOST_TEST(j["privacy"]["calibration"] == "classical");
  BOOST_TEST(j["privacy"].contains("warning"));
}

BOOST_AUTO_TEST_CASE(feverless_cli_one_party_is_an_error) {
  auto r = run_veil("train --protocol feverless --parties 1");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.output.find("--parties 1") != std::string::npos);
  BOOST_TEST(r.output.find("at least 2 clients") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
