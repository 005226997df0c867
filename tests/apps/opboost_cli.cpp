// `veil train --protocol opboost` as a user runs it: parties in this
// process as actors, the report's protocol, privacy (per feature and per
// record) and bytes by type; one party is a clear error.
#include <boost/test/unit_test.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::contains;
using veil::test::run_veil;
using veil::test::temp_dir;

namespace {

/// 300 rows, 6 numeric features and a categorical code, a label that
/// depends on two numeric features and the code.
std::string write_op_csv(const temp_dir& dir) {
  auto path = dir.path("op.csv");
  std::ofstream out(path);
  out << "a,b,c,d,e,f,kind,label\n";
  std::uint64_t s = 4242;
  auto next = [&] {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(s >> 11) / 9007199254740992.0;
  };
  for (int i = 0; i < 300; ++i) {
    double x[6];
    for (auto& v : x)
      v = next();
    int kind = static_cast<int>(next() * 5);
    int y = x[0] + 0.5 * x[3] + 0.1 * kind > 0.95 ? 1 : 0;
    out << x[0] << "," << x[1] << "," << x[2] << "," << x[3] << "," << x[4]
        << "," << x[5] << "," << kind << "," << y << "\n";
  }
  return path;
}

} // namespace

BOOST_AUTO_TEST_SUITE(opboost_cli)

BOOST_AUTO_TEST_CASE(opboost_cli_report) {
  temp_dir dir;
  auto data = write_op_csv(dir);
  auto report = dir.path("r.json");
  auto r = run_veil("train --protocol opboost --parties 3 --epsilon 1 "
                    "--trees 5 --categorical kind --data " +
                    data + " --report " + report);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(r.output.find("privacy: global-map") != std::string::npos);
  BOOST_TEST(r.output.find("taken from the data") != std::string::npos);
  nlohmann::json j;
  std::ifstream(report) >> j;
  BOOST_TEST(j["protocol"] == "opboost");
  BOOST_TEST(j["parties"] == 3);
  BOOST_TEST(j["trees"] == 5);
  BOOST_TEST(j["prediction"] == "private");
  BOOST_TEST(j["party_features"]["party0"] == nlohmann::json::array({"kind"}));
  BOOST_TEST(j["party_features"]["party1"].size() == 3u);
  BOOST_TEST(j["party_features"]["party2"].size() == 3u);
  BOOST_TEST(j["metrics"].contains("auc"));
  const auto& pv = j["privacy"];
  BOOST_TEST(pv["mechanism"] == "global-map");
  BOOST_TEST(pv["epsilon"].get<double>() == 1.0);
  BOOST_REQUIRE_EQUAL(pv["per_feature"].size(), 6u);
  for (const auto& f : pv["per_feature"]) {
    BOOST_TEST(f["guarantee"] == "dLDP");
    BOOST_TEST(f["epsilon"].get<double>() == 1.0);
  }
  BOOST_TEST(pv["total_per_record"]["dLDP"]["epsilon"].get<double>() == 6.0);
  BOOST_TEST(pv["unprotected"] == false);
  BOOST_TEST(pv["report"].get<std::string>().size() > 0u);
  BOOST_TEST(!pv.contains("partition_budget_note"));
  BOOST_TEST(j["bytes"]["total"].get<std::uint64_t>() > 0u);
  const auto& a = j["bytes"]["per_party"]["party0"]["by_type"];
  BOOST_TEST(a["M1 ranks"]["received"].get<std::uint64_t>() ==
             2u * (4u * 300u * 3u + 8u));
  BOOST_TEST(a["M1 ranks"]["sent"].get<std::uint64_t>() == 0u);
  BOOST_TEST(a["M2 split_request"]["sent"].get<std::uint64_t>() > 0u);
  for (auto name : {"party1", "party2"}) {
    const auto& b = j["bytes"]["per_party"][name];
    BOOST_TEST(b["sent"].get<std::uint64_t>() > 0u);
    BOOST_TEST(b["by_type"]["M1 ranks"]["sent"].get<std::uint64_t>() ==
               4u * 300u * 3u + 8u);
    BOOST_TEST(b["by_type"].contains("M3 split_values"));
    BOOST_TEST(b["by_type"].contains("M4 predict_values"));
  }
}

BOOST_AUTO_TEST_CASE(opboost_cli_adj_map_gbdt) {
  temp_dir dir;
  auto data = write_op_csv(dir);
  auto report = dir.path("r.json");
  auto r = run_veil(
      "train --protocol opboost --parties 2 --epsilon 0.5 --trees 3 --data " +
      data + " --test " + data +
      " --set opboost.mechanism=adj-map --set opboost.theta=2 "
      "--set opboost.alpha=2 --set opboost.sampler=discrete-laplace "
      "--set opboost.learner=gbdt --report " +
      report);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  nlohmann::json j;
  std::ifstream(report) >> j;
  BOOST_TEST(j["params"]["learner"] == "gbdt");
  BOOST_TEST(j["trees"] == 3);
  const auto& pv = j["privacy"];
  BOOST_TEST(pv["mechanism"] == "adj-map");
  BOOST_TEST(pv["sampler"] == "discrete-laplace");
  BOOST_TEST(pv["theta"] == 2);
  BOOST_TEST(pv.contains("partition_budget_note"));
  BOOST_TEST(pv["total_per_record"].contains("partition-dLDP"));
  BOOST_TEST(pv["per_feature"].size() == 7u);
}

BOOST_AUTO_TEST_CASE(opboost_cli_bad_settings) {
  auto r = run_veil("train --protocol opboost --parties 1");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.output.find("--parties 1") != std::string::npos);
  BOOST_TEST(r.output.find("at least 2 parties") != std::string::npos);
  r = run_veil("train --protocol opboost --set opboost.mechanism=nope");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.output.find("nope") != std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
