// `veil train --protocol opboost` as a user runs it: parties in this
// process as actors, the report's protocol, privacy (per feature and per
// record) and bytes by type; one party is a clear error.
#include <boost/test/unit_test.hpp>

#include <cmath>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/files.hpp"
#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::contains;
using veil::test::lcg;
using veil::test::read_json;
using veil::test::run_veil;
using veil::test::temp_dir;
using veil::test::write_text;

namespace {

/// 300 rows, 6 numeric features and a categorical code, a label that
/// depends on two numeric features and the code.
std::string write_op_csv(const temp_dir& dir) {
  auto path = dir.path("op.csv");
  std::ofstream out(path);
  out << "a,b,c,d,e,f,kind,label\n";
  lcg next(4242);
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

/// How many values of CSV column `col` lie outside [lo, hi].
int count_outside(const std::string& path, int col, double lo, double hi) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line); // header
  int n = 0;
  while (std::getline(in, line)) {
    std::size_t at = 0;
    for (int c = 0; c < col; ++c)
      at = line.find(',', at) + 1;
    double x = std::stod(line.substr(at, line.find(',', at) - at));
    n += (x < lo || x > hi) ? 1 : 0;
  }
  return n;
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
  BOOST_TEST(contains(r.output, "privacy: each Party B value: 1-dLDP "
                                "(global-map); each record over its 6 Party B "
                                "features: 6-dLDP by sequential composition; "
                                "CONDITIONAL for 6 column(s) whose bounds "
                                "were fitted to the data (a, b, c, d, e, f): "
                                "it holds given their range, which Party A "
                                "learns; Party A's columns and the labels "
                                "stay with Party A"),
             r.output);
  BOOST_TEST(r.output.find("taken from the data") != std::string::npos);
  auto j = read_json(report);
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
  // M1: the row count (4 bytes), the length of 900 ranks (CAF's varbyte:
  // 2 bytes) and the ranks (4 bytes each).
  constexpr std::uint64_t m1 = 4u + 2u + 4u * 300u * 3u;
  BOOST_TEST(a["M1 ranks"]["received"].get<std::uint64_t>() == 2u * m1);
  BOOST_TEST(a["M1 ranks"]["sent"].get<std::uint64_t>() == 0u);
  BOOST_TEST(a["M2 split_request"]["sent"].get<std::uint64_t>() > 0u);
  for (auto name : {"party1", "party2"}) {
    const auto& b = j["bytes"]["per_party"][name];
    BOOST_TEST(b["sent"].get<std::uint64_t>() > 0u);
    BOOST_TEST(b["by_type"]["M1 ranks"]["sent"].get<std::uint64_t>() == m1);
    BOOST_TEST(b["by_type"].contains("M3 split_values"));
    BOOST_TEST(b["by_type"].contains("M4 predict_values"));
  }
}

BOOST_AUTO_TEST_CASE(opboost_cli_learner_settings_reach_party_a) {
  temp_dir dir;
  auto data = write_op_csv(dir);
  auto report = dir.path("r.json");
  auto model = dir.path("m.json");
  auto r = run_veil("train --protocol opboost --parties 3 --epsilon 1 "
                    "--trees 3 --categorical kind --set max_delta_step=0.3 "
                    "--set gamma=0.125 --set min_child_weight=2 --data " +
                    data + " --report " + report + " --model-out " + model);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  auto j = read_json(report);
  BOOST_TEST(j["params"]["max_delta_step"].get<double>() == 0.3);
  BOOST_TEST(j["params"]["gamma"].get<double>() == 0.125);
  BOOST_TEST(j["params"]["min_child_weight"].get<double>() == 2.0);
  // Party A's trees: every leaf within eta * 0.3.
  auto eta = j["params"]["eta"].get<double>();
  std::size_t leaves = 0;
  auto m = read_json(model);
  for (const auto& t : m["trees"])
    for (const auto& n : t["nodes"])
      if (n.contains("leaf")) {
        ++leaves;
        BOOST_TEST(std::fabs(n["leaf"].get<double>()) <= eta * 0.3 + 1e-6);
      }
  BOOST_TEST(leaves > 0u);
  // Its Party B thresholds are desensitized units: veil predict reaches
  // them only through the Party Bs (private prediction, restored from the
  // parts they kept), and veil export refuses the model instead of giving
  // wrong answers.
  auto p = run_veil("predict --model " + model + " --data " + data);
  BOOST_TEST(p.status == 0, p.output);
  BOOST_TEST(contains(p.output, "predicted 300 rows with 3 parties (opboost"),
             p.output);
  BOOST_TEST(contains(p.output, "desensitized its values of these rows afresh"),
             p.output);
  auto x = run_veil("export --model " + model + " --format xgboost --out " +
                    model + ".xgb");
  BOOST_TEST(x.status == 2, x.output);
  BOOST_TEST(contains(x.output, "desensitized units"), x.output);
}

BOOST_AUTO_TEST_CASE(opboost_cli_unused_learner_settings_are_exit_2) {
  temp_dir dir;
  auto data = write_op_csv(dir);
  for (std::string set : {"early_stopping_rounds=5", "eval_train=true",
                          "weak_learner=decision_table"}) {
    auto r = run_veil("train --protocol opboost --parties 3 --epsilon 1 "
                      "--trees 2 --categorical kind --set " +
                      set + " --data " + data);
    BOOST_TEST(r.status == 2, set << ": " << r.output);
    BOOST_TEST(r.output.find("not used by OpBoost") != std::string::npos,
               r.output);
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
  auto j = read_json(report);
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

BOOST_AUTO_TEST_CASE(opboost_cli_public_bounds_and_domain) {
  // Public bounds for a, b, c, d (a and d on the command line, b and c from
  // a file whose line for d the command line overrides), fitted ones for e
  // and f; a's bounds cut the data, so its outside values are clamped.
  temp_dir dir;
  auto data = write_op_csv(dir);
  auto report = dir.path("r.json");
  auto file = dir.path("bounds.csv");
  write_text(file, "column,lo,hi\nb,0,1\n# comment\n\nc,-1,2\nd,5,6\n");
  auto r = run_veil(
      "train --protocol opboost --parties 2 --epsilon 1 "
      "--trees 3 --categorical kind --data " +
      data + " --set opboost.bounds.a=0.2:0.8 --set opboost.bounds=" + file +
      " --set opboost.bounds.d=0:1 --set opboost.domain=0:20 "
      "--report " +
      report);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(contains(r.output, "column(s) e, f were taken from the data"));
  int outside = count_outside(data, 0, 0.2, 0.8);
  BOOST_REQUIRE(outside > 0);
  BOOST_TEST(contains(r.output, "clamped"));
  BOOST_TEST(contains(r.output, "a (" + std::to_string(outside) +
                                    " training values outside [0.2, 0.8])"));
  // Said once, and only for a.
  auto at = r.output.find("clamped");
  BOOST_TEST(at == r.output.rfind("clamped"));
  auto line = r.output.substr(at, r.output.find('\n', at) - at);
  for (auto other : {"b (", "c (", "d (", "e (", "f ("})
    BOOST_TEST(!contains(line, other), line);
  auto j = read_json(report);
  const auto& pv = j["privacy"];
  BOOST_TEST(pv["public_bounds"] ==
             nlohmann::json::array({"a", "b", "c", "d"}));
  BOOST_TEST(pv["fitted_bounds"] == nlohmann::json::array({"e", "f"}));
  BOOST_TEST(pv["domain"] == nlohmann::json::array({0, 20}));
  const auto& b = j["bounds"];
  BOOST_TEST(b["public"]["a"] == nlohmann::json::array({0.2, 0.8}));
  BOOST_TEST(b["public"]["c"] == nlohmann::json::array({-1.0, 2.0}));
  BOOST_TEST(b["public"]["d"] == nlohmann::json::array({0.0, 1.0}));
  BOOST_TEST(b["clamped"]["a"]["train"].get<int>() == outside);
  BOOST_TEST(b["clamped"].size() == 1u);
}

BOOST_AUTO_TEST_CASE(opboost_cli_all_public_bounds_no_warning) {
  temp_dir dir;
  auto data = write_op_csv(dir);
  std::string set;
  for (auto c : {"a", "b", "c", "d", "e", "f"})
    set += std::string(" --set opboost.bounds.") + c + "=0:1";
  auto r = run_veil("train --protocol opboost --parties 3 --trees 2 "
                    "--categorical kind --data " +
                    data + " --test " + data + set);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(!contains(r.output, "taken from the data"));
  BOOST_TEST(!contains(r.output, "clamped"));
}

BOOST_AUTO_TEST_CASE(opboost_cli_bad_bounds_name_key_and_column) {
  temp_dir dir;
  auto data = write_op_csv(dir);
  auto run = [&](const std::string& extra) {
    return run_veil("train --protocol opboost --parties 2 --trees 2 "
                    "--categorical kind --data " +
                    data + " " + extra);
  };
  struct bad_case {
    std::string args;
    std::vector<std::string> says;
  };
  auto file = dir.path("b.csv");
  auto dup = dir.path("dup.csv");
  auto short_line = dir.path("short.csv");
  write_text(file, "column,lo,hi\nb,zero,1\n");
  write_text(dup, "a,0,1\na,0,2\n");
  write_text(short_line, "column,lo,hi\na,0\n");
  for (const auto& k : std::vector<bad_case>{
           {"--set opboost.bounds.zz=0:1",
            {"--set opboost.bounds.zz", "no column 'zz'"}},
           {"--set opboost.bounds.a=1:1",
            {"--set opboost.bounds.a", "column 'a'", "must be below"}},
           {"--set opboost.bounds.a=3:-1", {"column 'a'", "must be below"}},
           {"--set opboost.bounds.a=x:1",
            {"--set opboost.bounds.a", "column 'a'", "'x' is not a number"}},
           {"--set opboost.bounds.a=5", {"opboost.bounds.a", "LO:HI"}},
           {"--set opboost.bounds.kind=0:4",
            {"opboost.bounds.kind", "'kind' is --categorical"}},
           {"--set opboost.bounds=" + file,
            {file + ":2", "column 'b'", "'zero' is not a number"}},
           {"--set opboost.bounds=" + dup, {dup + ":2", "'a' is listed twice"}},
           {"--set opboost.bounds=" + short_line,
            {short_line + ":2", "column,lo,hi"}},
           {"--set opboost.bounds=" + dir.path("none.csv"),
            {"none.csv", "cannot open"}},
           {"--set opboost.domain=1.5:10", {"opboost.domain", "integers"}},
           {"--set opboost.domain=10:1", {"opboost.domain", "must be below"}},
           {"--set opboost.domain=1:1e9", {"opboost.domain", "2^22"}},
           {"--set opboost.domain=1:3 --set opboost.mechanism=local-map",
            {"opboost.theta = 4", "|D| = 3"}},
       }) {
    auto r = run(k.args);
    BOOST_TEST(r.status == 2, k.args << ": " << r.output);
    for (const auto& w : k.says)
      BOOST_TEST(contains(r.output, w),
                 k.args << " should say " << w << ": " << r.output);
  }
}

BOOST_AUTO_TEST_CASE(opboost_cli_non_private_prediction) {
  // With the identity mechanism, Party B's values of the test rows are the
  // same whether Party B sends them (private) or Party A maps the plaintext
  // rows itself (non-private): the metrics must agree to the last digit,
  // which checks the model's feature order (Party A's columns first) and
  // the mapping. Two Party B users, public bounds on one column.
  temp_dir dir;
  auto data = write_op_csv(dir);
  nlohmann::json j[2];
  const char* modes[] = {"private", "non-private"};
  for (int k = 0; k < 2; ++k) {
    auto report = dir.path(std::string("r") + modes[k] + ".json");
    auto r = run_veil("train --protocol opboost --parties 3 --trees 4 "
                      "--categorical kind --data " +
                      data + " --test " + data +
                      " --set opboost.mechanism=identity "
                      "--set opboost.bounds.e=0.1:0.9 "
                      "--set opboost.prediction=" +
                      modes[k] + " --report " + report);
    BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
    BOOST_TEST(
        contains(r.output, std::string("(") + modes[k] + " prediction)"));
    j[k] = read_json(report);
    BOOST_TEST(j[k]["prediction"] == modes[k]);
  }
  BOOST_TEST(j[0]["privacy"].contains("prediction_note"));
  BOOST_TEST(!j[1]["privacy"].contains("prediction_note"));
  BOOST_TEST(j[0]["metrics"] == j[1]["metrics"]);
  auto r = run_veil("train --protocol opboost --set opboost.prediction=maybe");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(contains(r.output, "opboost.prediction=maybe"));
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
