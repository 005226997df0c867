// `veil train --protocol feverless` as a user runs it: clients in this
// process as actors, the report's protocol, privacy (per query and total)
// and bytes; one client is a clear error. The baselines: feverless-plain
// (no privacy) builds centralized training's model; feverless-ldp reports
// local noise; feverless-ahe with noise that rounds to 0 in fixed point
// builds FEVERLESS's model bit for bit; bad keys are exit 2.
#include <boost/test/unit_test.hpp>

#include <cmath>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "tests/support/files.hpp"
#include "tests/support/run_veil.hpp"
#include "tests/support/temp_dir.hpp"

using veil::test::contains;
using veil::test::read_json;
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

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  BOOST_REQUIRE_MESSAGE(in, "cannot open " << path);
  return {std::istreambuf_iterator<char>(in), {}};
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
  // The headline: the total budget, by zCDP, fixed before training.
  BOOST_TEST(contains(r.output, "privacy: each label: (2, 1e-05)-DP over the "
                                "whole training against any one other "
                                "client, by zCDP over at most 36 queries per "
                                "record; per query: "),
             r.output);
  // No --test: the metrics come from the exact training labels.
  BOOST_TEST(contains(r.output, "outside the guarantee below"), r.output);
  // The noisy modes clamp the weights by default, and say so: max(0.5,
  // 3 / (eta NT)) = 3 / (0.3 · 2) = 5.
  BOOST_TEST(contains(r.output, "leaf weights clamped to ±5"), r.output);
  BOOST_TEST(!contains(r.output, "can blow up"), r.output);
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
  BOOST_TEST(std::fabs(pv["total"]["epsilon"].get<double>() - 2.0) <= 1e-9);
  BOOST_TEST(pv["total"]["by"] == "zcdp");
  BOOST_TEST(pv["total"]["record_query_bound"] == 2 * 3 * 6);
  BOOST_TEST(pv["total"]["basic"]["epsilon"].get<double>() > 0);
  BOOST_TEST(pv["realised"]["record_queries"].get<std::uint64_t>() <= 36u);
  BOOST_TEST(pv["realised"]["epsilon"].get<double>() <= 2.0 + 1e-9);
  BOOST_TEST(contains(pv["headline"].get<std::string>(), "each label: (2, "));
  BOOST_TEST(
      contains(pv["neighbouring"].get<std::string>(), "one row's label"));
  BOOST_TEST(pv["sensitivity"]["g"].get<double>() == 1.0);
  // H is released exact by default: no label moves it.
  BOOST_TEST(pv["sensitivity"]["h"].is_null());
  BOOST_TEST(!pv["hessian_noise"].get<bool>());
  BOOST_TEST(pv["sigma"].get<double>() > 0);
  BOOST_TEST(std::fabs(j["params"]["max_delta_step"].get<double>() - 5) <=
             1e-12);
  BOOST_TEST(j["params"]["max_delta_step_is_default"].get<bool>());
  BOOST_TEST(j["bytes"]["total"].get<std::uint64_t>() > 0u);
  for (auto name : {"client0", "client1", "client2"}) {
    const auto& b = j["bytes"]["per_party"][name];
    BOOST_TEST(b["sent"].get<std::uint64_t>() > 0u);
    BOOST_TEST(b["by_type"].contains("masked"));
    // Per type and direction, adding up to the totals.
    std::uint64_t sent = 0, received = 0;
    for (const auto& [type, v] : b["by_type"].items()) {
      sent += v["sent"].get<std::uint64_t>();
      received += v["received"].get<std::uint64_t>();
    }
    BOOST_TEST(sent == b["sent"].get<std::uint64_t>());
    BOOST_TEST(received == b["received"].get<std::uint64_t>());
  }
}

BOOST_AUTO_TEST_CASE(feverless_cli_per_sum_budget_and_classical_delta) {
  temp_dir dir;
  auto data = write_small_csv(dir);
  auto report = dir.path("r.json");
  // At epsilon = 10 per released sum the paper's classical sigma only gives
  // delta = 2.27e-5: the report says so and uses it.
  auto r = run_veil("train --protocol feverless --parties 2 --data " + data +
                    " --trees 1 --depth 2 --set feverless.sum_epsilon=10 "
                    "--set feverless.calibration=classical --set "
                    "max_delta_step=0 --report " +
                    report);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(contains(r.output, "per query: (10, 2.27e-05)-DP"), r.output);
  BOOST_TEST(contains(r.output, "true delta"), r.output);
  nlohmann::json j;
  std::ifstream(report) >> j;
  BOOST_TEST(j["privacy"]["budget"] == "per_sum");
  BOOST_TEST(j["privacy"]["calibration"] == "classical");
  BOOST_TEST(j["privacy"]["per_query"]["delta"].get<double>() > 2e-5);
  BOOST_TEST(j["privacy"].contains("warning"));
  // max_delta_step = 0 asked for the paper's weights: no clamp, and no
  // warning either (H is exact by default; the paper's noise on it would
  // be 0.48 x 0.25 = 0.12 < lambda).
  BOOST_TEST(j["params"]["max_delta_step"].get<double>() == 0.0);
  BOOST_TEST(!j["params"]["max_delta_step_is_default"].get<bool>());
  BOOST_TEST(!contains(r.output, "max_delta_step"), r.output);
  // The old name says what the value means.
  auto old = run_veil("train --protocol feverless --parties 2 --data " + data +
                      " --trees 1 --depth 2 --set feverless.query_epsilon=2");
  BOOST_TEST(old.status == 2);
  BOOST_TEST(contains(old.output, "renamed feverless.sum_epsilon"), old.output);
  // Without the clamp under a small total budget, the wild weights of the
  // paper's noisy H are pointed out.
  auto wild = run_veil("train --protocol feverless --parties 2 --data " + data +
                       " --trees 1 --depth 2 --set max_delta_step=0 --set "
                       "feverless.hessian_noise=true");
  BOOST_REQUIRE_MESSAGE(wild.status == 0, wild.output);
  BOOST_TEST(contains(wild.output, "can blow up"), wild.output);
}

BOOST_AUTO_TEST_CASE(feverless_cli_exact_hessian_charges_the_same) {
  // The default releases H exact; feverless.hessian_noise = true noises it
  // as the paper does. The guarantee only ever charged G, so it is the
  // same; the report and the privacy lines say that H is exact, and the
  // warning about weights that noisy H blows up goes.
  temp_dir dir;
  auto data = write_small_csv(dir);
  auto with = dir.path("with.json"), without = dir.path("without.json");
  auto train = "train --protocol feverless --parties 2 --data " + data +
               " --trees 1 --depth 2 --set max_delta_step=0 --report ";
  auto a = run_veil(train + with + " --set feverless.hessian_noise=true");
  auto b = run_veil(train + without);
  BOOST_REQUIRE_MESSAGE(a.status == 0, a.output);
  BOOST_REQUIRE_MESSAGE(b.status == 0, b.output);
  BOOST_TEST(contains(a.output, "can blow up"), a.output);
  BOOST_TEST(!contains(b.output, "can blow up"), b.output);
  BOOST_TEST(contains(b.output, "H exact: no label moves it"), b.output);
  auto ja = read_json(with)["privacy"], jb = read_json(without)["privacy"];
  BOOST_TEST(ja["headline"] == jb["headline"]);
  BOOST_TEST(ja["sigma"] == jb["sigma"]);
  BOOST_TEST(ja["per_query"] == jb["per_query"]);
  BOOST_TEST(ja["total"] == jb["total"]);
  BOOST_TEST(ja["hessian_noise"] == true);
  BOOST_TEST(jb["hessian_noise"] == false);
  BOOST_TEST(ja["sensitivity"]["h"] == 0.25);
  BOOST_TEST(jb["sensitivity"]["h"].is_null());
}

BOOST_AUTO_TEST_CASE(feverless_cli_max_delta_step_clamps_noisy_weights) {
  temp_dir dir;
  auto data = write_small_csv(dir);
  auto report = dir.path("r.json");
  auto model = dir.path("m.json");
  auto r = run_veil("train --protocol feverless --parties 3 --data " + data +
                    " --trees 3 --depth 3 --set max_delta_step=0.4 --report " +
                    report + " --model-out " + model);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(!contains(r.output, "clamps the weights"), r.output);
  auto j = read_json(report);
  BOOST_TEST(j["params"]["max_delta_step"].get<double>() == 0.4);
  // Every leaf of the public model is within eta * 0.4, every inner
  // node's weight within 0.4.
  auto m = read_json(model);
  std::size_t leaves = 0;
  for (const auto& t : m["trees"])
    for (const auto& n : t["nodes"]) {
      if (n.contains("leaf")) {
        ++leaves;
        BOOST_TEST(std::fabs(n["leaf"].get<double>()) <= 0.3 * 0.4 + 1e-6);
      } else {
        BOOST_TEST(std::fabs(n["weight"].get<double>()) <= 0.4 + 1e-6);
      }
    }
  BOOST_TEST(leaves > 0u);
}

BOOST_AUTO_TEST_CASE(feverless_cli_one_party_is_an_error) {
  auto r = run_veil("train --protocol feverless --parties 1");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(r.output.find("--parties 1") != std::string::npos);
  BOOST_TEST(r.output.find("at least 2 clients") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(feverless_cli_plain_is_centralized_training) {
  // feverless-plain exchanges plaintext sums: no privacy, and its trees are
  // centralized training's with the parameters it reproduces (B = 10
  // quantile buckets = max_bin 10, initial margin 0 = base_score 0.5, no
  // min_child_weight; tests/protocols/feverless/training.cpp checks the
  // trees node by node). Leaf values may differ in the last float bit (the
  // sums are added in another order), so the ranking (AUC) is the same and
  // the logloss agrees to float precision.
  temp_dir dir;
  auto data = write_small_csv(dir);
  auto fr = dir.path("fv.json");
  auto cr = dir.path("central.json");
  auto r = run_veil("train --protocol feverless-plain --parties 3 --data " +
                    data + " --trees 3 --depth 3 --report " + fr);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(contains(r.output, "privacy: no differential privacy (plain "
                                "mode"),
             r.output);
  auto c = run_veil("train --protocol centralized --data " + data +
                    " --trees 3 --depth 3 --threads 1 --set max_bin=10 "
                    "--set base_score=0.5 --set min_child_weight=0 --report " +
                    cr);
  BOOST_REQUIRE_MESSAGE(c.status == 0, c.output);
  auto j = read_json(fr);
  auto k = read_json(cr);
  BOOST_TEST(j["protocol"] == "feverless-plain");
  BOOST_TEST(j["privacy"]["mechanism"] == "none");
  BOOST_TEST(j["queries"].get<std::uint64_t>() > 0u);
  BOOST_TEST(j["privacy"]["sigma"].get<double>() == 0.0);
  BOOST_TEST(
      contains(j["privacy"]["warning"].get<std::string>(), "no privacy"));
  BOOST_TEST(j["trees"] == 3);
  for (auto name : {"client0", "client1", "client2"}) {
    const auto& b = j["bytes"]["per_party"][name];
    BOOST_TEST(b["sent"].get<std::uint64_t>() > 0u);
    BOOST_TEST(!b["by_type"].contains("masked"));
  }
  auto auc = j["metrics"]["auc"].get<double>();
  BOOST_TEST(auc > 0.8);
  BOOST_TEST(std::fabs(auc - k["metrics"]["auc"].get<double>()) <= 1e-9);
  BOOST_TEST(std::fabs(j["metrics"]["logloss"].get<double>() -
                       k["metrics"]["logloss"].get<double>()) <= 1e-6);
  BOOST_TEST(j["metrics"]["accuracy"].get<double>() ==
             k["metrics"]["accuracy"].get<double>());
}

BOOST_AUTO_TEST_CASE(feverless_cli_ldp_reports_local_noise) {
  temp_dir dir;
  auto data = write_small_csv(dir);
  auto report = dir.path("r.json");
  auto r = run_veil("train --protocol feverless-ldp --parties 3 --data " +
                    data + " --trees 2 --depth 2 --report " + report);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(contains(r.output, "privacy: each label: (2, 1e-05)-DP"),
             r.output);
  BOOST_TEST(contains(r.output, "local DP"), r.output);
  auto j = read_json(report);
  BOOST_TEST(j["protocol"] == "feverless-ldp");
  const auto& pv = j["privacy"];
  BOOST_TEST(contains(pv["mechanism"].get<std::string>(), "local"));
  BOOST_TEST(pv["budget"] == "total");
  BOOST_TEST(pv["sigma"].get<double>() > 0);
  BOOST_TEST(pv["per_query"]["epsilon"].get<double>() > 0);
  BOOST_TEST(pv["per_query"]["delta"].get<double>() > 0);
  BOOST_TEST(pv["realised"]["record_queries"].get<std::uint64_t>() > 0u);
  BOOST_TEST(pv["queries"].get<std::uint64_t>() > 0u);
  BOOST_TEST(std::fabs(pv["total"]["epsilon"].get<double>() - 2.0) <= 1e-9);
  BOOST_TEST(pv["total"]["basic"]["epsilon"].get<double>() > 0);
  // No masks in LDP: plaintext (noisy) sums.
  BOOST_TEST(!j["bytes"]["per_party"]["client0"]["by_type"].contains("masked"));
}

BOOST_AUTO_TEST_CASE(feverless_cli_ahe_equals_feverless_without_noise) {
  // feverless-ahe adds FEVERLESS's noise (one leader per query, spec
  // §10.5), so with the default budget its model is random. With a
  // per-sum epsilon of 1e13 (classical calibration) sigma is 4.8e-13, far
  // below the fixed point's unit 2^-32: the discrete Gaussian's variance is
  // rounded up to one unit, so both protocols sum the same fixed-point
  // values up to a few units (masks, blinding and Paillier cancel mod 2^64)
  // and must build the same trees, with leaf values equal to float
  // precision; and the same trees as feverless-plain.
  temp_dir dir;
  auto data = write_small_csv(dir);
  const std::string common = "train --parties 3 --data " + data +
                             " --trees 2 --depth 2 --seed 5 --set "
                             "max_delta_step=0";
  // feverless-plain takes no budget (it adds no noise).
  const std::string negligible_noise = " --set feverless.sum_epsilon=1e13 "
                                       "--set feverless.calibration=classical "
                                       "--set feverless.noise_below_unit=true";
  std::string model[3], report[3];
  const char* protocols[3] = {"feverless-ahe", "feverless", "feverless-plain"};
  for (int i = 0; i < 3; ++i) {
    auto m = dir.path("m" + std::to_string(i) + ".json");
    auto rep = dir.path("r" + std::to_string(i) + ".json");
    auto r = run_veil(common + " --protocol " + protocols[i] +
                      (i < 2 ? negligible_noise : std::string()) +
                      " --set paillier.bits=1024 --model-out " + m +
                      " --report " + rep);
    BOOST_REQUIRE_MESSAGE(r.status == 0, protocols[i] << ": " << r.output);
    model[i] = read_bytes(m);
    report[i] = rep;
  }
  auto ahe = read_json(report[0]);
  BOOST_TEST(ahe["protocol"] == "feverless-ahe");
  BOOST_TEST(ahe["params"]["paillier_bits"] == 1024);
  BOOST_TEST(ahe["privacy"]["sigma"].get<double>() < 1e-12);
  BOOST_TEST(ahe["trees"] == 2);
  BOOST_TEST(!model[0].empty());
  // AHE == FEVERLESS: the same nodes, leaf values to float precision.
  auto ma = nlohmann::json::parse(model[0]),
       mf = nlohmann::json::parse(model[1]);
  BOOST_REQUIRE_EQUAL(ma["trees"].size(), mf["trees"].size());
  for (std::size_t t = 0; t < ma["trees"].size(); ++t) {
    const auto& na = ma["trees"][t]["nodes"];
    const auto& nf = mf["trees"][t]["nodes"];
    BOOST_REQUIRE_EQUAL(na.size(), nf.size());
    for (std::size_t i = 0; i < na.size(); ++i) {
      BOOST_TEST(na[i].contains("leaf") == nf[i].contains("leaf"));
      if (na[i].contains("leaf"))
        BOOST_TEST(std::fabs(na[i]["leaf"].get<double>() -
                             nf[i]["leaf"].get<double>()) <= 1e-6);
    }
  }
  auto fv = read_json(report[1]);
  auto pl = read_json(report[2]);
  for (const char* m : {"auc", "logloss", "accuracy"}) {
    BOOST_TEST(std::fabs(ahe["metrics"][m].get<double>() -
                         fv["metrics"][m].get<double>()) <= 1e-6);
    // Against plaintext double sums: the fixed-point rounding (2^-33 per
    // g, h) moves leaf values by far less than a float ulp's effect here.
    BOOST_TEST(std::fabs(ahe["metrics"][m].get<double>() -
                         pl["metrics"][m].get<double>()) <= 1e-6);
  }
  // Paillier ciphertexts are far larger than masked 64-bit sums.
  BOOST_TEST(ahe["bytes"]["per_party"]["client1"]["sent"].get<std::uint64_t>() >
             fv["bytes"]["per_party"]["client1"]["sent"].get<std::uint64_t>());
}

BOOST_AUTO_TEST_CASE(feverless_cli_bad_paillier_bits_is_exit_2) {
  temp_dir dir;
  auto data = write_small_csv(dir);
  auto r = run_veil("train --protocol feverless-ahe --parties 2 --data " +
                    data + " --trees 1 --depth 2 --set paillier.bits=1000");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(contains(r.output, "--set paillier.bits=1000"));
  BOOST_TEST(contains(r.output, "2048 or 1024"));
}

BOOST_AUTO_TEST_CASE(feverless_cli_unused_learner_setting_is_exit_2) {
  // A learner setting FEVERLESS's trees do not use must not be ignored
  // silently: the user would believe it shaped the model.
  temp_dir dir;
  auto data = write_small_csv(dir);
  for (std::string setting :
       {"max_bin=64", "min_child_weight=5", "base_score=0.9"}) {
    auto r = run_veil("train --protocol feverless-plain --parties 2 --data " +
                      data + " --trees 1 --depth 2 --set " + setting);
    BOOST_TEST(r.status == 2, setting);
    auto key = setting.substr(0, setting.find('='));
    BOOST_TEST(contains(r.output, key + ": not used by FEVERLESS"), r.output);
  }
  // Early stopping watches test rows: without them it says so.
  auto r =
      run_veil("train --protocol feverless-plain --parties 2 --data " + data +
               " --trees 3 --depth 2 --set early_stopping_rounds=2");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(contains(r.output, "it watches the test rows"), r.output);
}

BOOST_AUTO_TEST_CASE(feverless_cli_hide_labels) {
  temp_dir dir;
  auto data = write_small_csv(dir);
  auto report = dir.path("r.json");
  auto r = run_veil("train --protocol feverless --parties 3 --data " + data +
                    " --trees 1 --depth 2 --set feverless.hide_labels=true "
                    "--report " +
                    report);
  BOOST_REQUIRE_MESSAGE(r.status == 0, r.output);
  BOOST_TEST(read_json(report)["params"]["hide_labels"].get<bool>());
  auto bad = run_veil("train --protocol feverless --parties 3 --data " + data +
                      " --trees 1 --depth 2 --set feverless.hide_labels=yes");
  BOOST_TEST(bad.status == 2);
  BOOST_TEST(contains(bad.output, "feverless.hide_labels=yes"), bad.output);
  BOOST_TEST(contains(bad.output, "expected true or false"), bad.output);
}

BOOST_AUTO_TEST_CASE(feverless_cli_bad_election_is_exit_2) {
  temp_dir dir;
  auto data = write_small_csv(dir);
  auto r = run_veil("train --protocol feverless --parties 2 --data " + data +
                    " --trees 1 --depth 2 --set feverless.election=bogus");
  BOOST_TEST(r.status == 2);
  BOOST_TEST(contains(r.output, "feverless.election=bogus"));
  BOOST_TEST(contains(r.output, "chain, signed or per_batch"));
}

// A budget whose noise is finer than the fixed point's unit protects
// nothing: refused, saying what to do instead (issue "Nodes that trust no
// one": --epsilon 1e300 was accepted).
BOOST_AUTO_TEST_CASE(a_budget_that_protects_nothing_is_refused) {
  temp_dir dir;
  auto data = write_small_csv(dir);
  for (auto budget : {"--epsilon 1e300", "--epsilon 1e40",
                      "--set feverless.sum_epsilon=1e300",
                      "--set feverless.sum_epsilon=1e13 --set "
                      "feverless.calibration=classical"}) {
    auto r = run_veil("train --parties 3 --data " + data +
                      " --trees 1 --depth 2 --protocol feverless " + budget);
    BOOST_TEST(r.status == 2, budget << ": " << r.output);
    BOOST_TEST(contains(r.output, "protects nothing"), r.output);
    BOOST_TEST(contains(r.output, "--protocol feverless-plain"), r.output);
  }
  // A large but meaningful budget still runs.
  auto ok = run_veil("train --parties 3 --data " + data +
                     " --trees 1 --depth 2 --protocol feverless --epsilon 100");
  BOOST_TEST(ok.status == 0, ok.output);
}

BOOST_AUTO_TEST_SUITE_END()
